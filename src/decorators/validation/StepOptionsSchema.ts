import { IsBoolean, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import type { Duration } from '../../ground/Duration';
import { IsDurationOption } from './IsDurationOption';

/** The accepted shape of `@Step` options. */
export class StepOptionsSchema {
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @IsOptional()
  @IsDurationOption()
  timeout?: Duration;

  @IsOptional()
  @IsBoolean()
  atMostOnce?: boolean;

  @IsOptional()
  @IsIn(['throw', 'intervene'])
  onUnknown?: 'throw' | 'intervene';

  @IsOptional()
  @IsBoolean()
  transactional?: boolean;

  @IsOptional()
  @IsString()
  @Matches(/^\S{1,200}$/, { message: '$property must be 1–200 characters without spaces' })
  limiter?: string;
}
