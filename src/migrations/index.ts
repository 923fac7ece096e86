/**
 * `waymark/migrations`: waymark's schema migrations, for applications that run them with
 * their own tooling (`Waymark.create` applies them by default; `waymark migrate` from a deploy
 * step).
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';

export { waymarkMigrations } from '../store/migrations';
export { Migrator, type MigratorOptions } from '../store/migrations/Migrator';
