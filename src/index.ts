import 'reflect-metadata';

export * from './decorators';
export * from './errors';
export * from './policies';
export * from './runtime';
export * from './store';
