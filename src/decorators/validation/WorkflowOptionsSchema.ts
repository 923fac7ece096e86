import { IsOptional, IsString, Length, Matches } from 'class-validator';
import type { Duration } from '../../ground/Duration';
import type { ArgsFunction } from '../../model/ArgsFunction';
import { IsDurationOption } from './IsDurationOption';
import { IsFunctionOption } from './IsFunctionOption';

/** The accepted shape of `@Workflow` options. */
export class WorkflowOptionsSchema {
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @IsOptional()
  @IsString()
  @Length(1, 64)
  @Matches(/^\S+$/, { message: '$property must not contain spaces' })
  version?: string;

  @IsOptional()
  @IsFunctionOption()
  id?: ArgsFunction<string>;

  @IsOptional()
  @IsString()
  @Matches(/^\S{1,200}$/, { message: '$property must be 1–200 characters without spaces' })
  queue?: string;

  @IsOptional()
  @IsDurationOption()
  timeout?: Duration;

  @IsOptional()
  @IsDurationOption()
  retention?: Duration;
}
