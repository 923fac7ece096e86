import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, Min } from 'class-validator';
import type { BackoffOptions } from '../../policies/Backoff';
import type { Duration } from '../../ground/Duration';
import type { ErrorMatcher } from '../../policies/ErrorClassifier';
import { IsDurationOption } from './IsDurationOption';
import { IsFunctionOption } from './IsFunctionOption';

/** The accepted shape of `@Retry` options; `backoff` is checked field by field afterwards. */
export class RetryOptionsSchema {
  // Bottom-up: the type check runs (and reports) before the range check.
  @IsOptional()
  @Min(1)
  @IsInt()
  maxAttempts?: number;

  @IsOptional()
  @IsObject()
  backoff?: BackoffOptions;

  @IsOptional()
  @IsArray()
  @IsFunctionOption({ each: true, message: '$property must list error classes or predicates' })
  retryOn?: ErrorMatcher[];

  @IsOptional()
  @IsArray()
  @IsFunctionOption({ each: true, message: '$property must list error classes or predicates' })
  abortOn?: ErrorMatcher[];

  @IsOptional()
  @IsBoolean()
  respectRetryAfter?: boolean;

  @IsOptional()
  @IsDurationOption()
  maxDelay?: Duration;

  @IsOptional()
  @IsIn(['throw', 'intervene'])
  onExhausted?: 'throw' | 'intervene';
}
