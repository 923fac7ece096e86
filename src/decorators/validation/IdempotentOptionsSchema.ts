import { IsIn, IsOptional } from 'class-validator';
import { IsFunctionOption } from './IsFunctionOption';

/** The accepted shape of `@Idempotent` options. */
export class IdempotentOptionsSchema {
  @IsOptional()
  @IsFunctionOption()
  key?: (...args: any[]) => string;

  @IsOptional()
  @IsIn(['run', 'global'])
  scope?: 'run' | 'global';
}
