export * from './Clock';
export * from './Disposable';
export * from './Duration';
export * from './Logger';
