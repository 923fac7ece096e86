/**
 * `waymark/migrations`: waymark's schema migrations, for applications that run them with
 * their own tooling (`Waymark.create` applies them by default; `waymark migrate` from a deploy
 * step).
 *
 * @packageDocumentation
 */

export { waymarkMigrations } from '../store/migrations';
export { Migrator, type MigratorOptions } from '../store/migrations/Migrator';
