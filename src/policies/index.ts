export * from './Backoff';
export * from './ErrorClassifier';
export * from './RetryAfter';
export * from './RetryPolicy';
export type { LimiterOptions, QueueOptions, RateLimit } from './FlowLimits';
export { isRateLimitedError } from './RateLimited';
