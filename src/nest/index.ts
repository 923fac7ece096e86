export * from './WaymarkModule';
export * from './WaymarkModuleOptions';
export * from './nestInstanceResolver';
export * from './WaymarkExceptionFilter';
