/**
 * `waymark/nest`: the NestJS module (a runtime per application, workflow classes resolved
 * from Nest's injector, an exception filter). Needs the optional peers `@nestjs/common` and
 * `@nestjs/core`.
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';
// First: a missing @nestjs package is named, with how to install it, before anything needs it.
import './nestPackages';

export * from './WaymarkModule';
export * from './WaymarkModuleOptions';
export * from './nestInstanceResolver';
export * from './WaymarkExceptionFilter';
