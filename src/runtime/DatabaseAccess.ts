import type { DataSource, DataSourceOptions } from 'typeorm';
import { applyMigrations as apply } from '../store/migrations/applyMigrations';
import {
  dataSourceOptionsFromUrl as optionsFromUrl,
  parseDatabaseUrl,
  redact,
} from '../store/connection/url/DatabaseUrl';
import { isDiskFullError as diskFull } from '../store/connection/diskFullError';
import { openDataSource, type OpenedDataSource } from '../store/connection/openDataSource';

/**
 * What operator tools (the CLI, the testing kit) need of a database beside a runtime: its URL
 * read and shown, opened and migrated, its failures named. They reach the store only through
 * here.
 */

/** TypeORM options for a database URL (see the README's "Connecting to a database"). */
export function dataSourceOptionsFromUrl(url: string): DataSourceOptions {
  return optionsFromUrl(url);
}

/** The URL as it may be shown: its password and unknown parameters' values as `***`. */
export function shownDatabaseUrl(url: string): string {
  return redact(url);
}

/** The TLS a URL asks for (`sslmode=require`, …), or undefined for none or a malformed URL. */
export function tlsAskedBy(url: string): string | undefined {
  try {
    const { tls } = parseDatabaseUrl(url);
    return tls && tls.mode !== 'disable' ? tls.asked : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a failure says the database's disk is full (it cannot take writes). */
export function isDiskFullError(error: unknown): boolean {
  return diskFull(error);
}

/** Opens the database at `url`, retrying through an outage for `retryTimeoutMs`. */
export function openDatabase(
  url: string,
  options: { readonly retryTimeoutMs: number },
): Promise<OpenedDataSource> {
  return openDataSource(url, options);
}

/** Applies waymark's pending migrations to `dataSource`; returns their names. */
export function applyMigrations(dataSource: DataSource, retryTimeoutMs: number): Promise<string[]> {
  return apply(dataSource, retryTimeoutMs);
}
