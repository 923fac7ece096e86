import { IsIn, IsOptional } from 'class-validator';
import type { ArgsFunction } from '../../model/ArgsFunction';
import { IsFunctionOption } from './IsFunctionOption';

/** The accepted shape of `@Idempotent` options. */
export class IdempotentOptionsSchema {
  @IsOptional()
  @IsFunctionOption()
  key?: ArgsFunction<string>;

  @IsOptional()
  @IsIn(['run', 'global'])
  scope?: 'run' | 'global';
}
