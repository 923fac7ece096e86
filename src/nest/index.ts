/**
 * `waymark/nest`: the NestJS module (a runtime per application, workflow classes resolved
 * from Nest's injector, an exception filter). Needs the optional peers `@nestjs/common` and
 * `@nestjs/core`.
 *
 * @packageDocumentation
 */
export * from './WaymarkModule';
export * from './WaymarkModuleOptions';
export * from './nestInstanceResolver';
export * from './WaymarkExceptionFilter';
