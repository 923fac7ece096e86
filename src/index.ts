import 'reflect-metadata';

export * from './codec';
export * from './decorators';
export * from './errors';
export * from './ground';
export * from './policies';
export * from './runtime';
export * from './store';
