export * from './Backoff';
export * from './ErrorClassifier';
export * from './RetryAfter';
export * from './RetryPolicy';
