import { NoWritableHostError, type HostAnswer } from '../../../errors/NoWritableHostError';
import { describeAnswer } from './describeAnswer';
import { formatHost, type HostAddress, type TargetSessionAttrs } from './HostList';

/** The part of a node-postgres client used here. */
export interface PgClient {
  host: string;
  port: number;
  connect(): Promise<unknown>;
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

/** node-postgres's `Client` class, or a subclass. */
export type PgClientClass = new (config: Record<string, unknown>) => PgClient;

/** How long a probe waits for a host that does not answer, unless the URL sets a timeout. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Why a connected PostgreSQL session cannot write, or undefined when it can: libpq's
 * `read-write` test (`transaction_read_only` is off), with the reason a standby gives.
 */
export async function readOnlyAnswer(client: PgClient): Promise<string | undefined> {
  const { rows } = await client.query(
    "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only",
  );
  const row = rows[0] ?? {};
  if (row.read_only !== 'on') return undefined;
  return row.recovery === true
    ? 'is read-only (a standby in recovery)'
    : 'is read-only (default_transaction_read_only is on)';
}

/**
 * Finds, and remembers, the first host of a PostgreSQL host list that takes a connection
 * and (with `read-write`) accepts writes, probing each in order with a short-lived client.
 * Connections of one pool share it: after a failover, the first connection that fails
 * makes the next one probe again. Probes that overlap share one walk.
 */
export class WritableHostFinder {
  private known: HostAddress | undefined;
  private walking: Promise<HostAddress> | undefined;

  constructor(
    private readonly Client: PgClientClass,
    readonly hosts: readonly HostAddress[],
    readonly attrs: TargetSessionAttrs,
  ) {}

  /** The host to connect to: the one found last, else the first that passes a probe. */
  async target(config: Record<string, unknown>): Promise<HostAddress> {
    if (this.known) return this.known;
    this.walking ??= this.walk(config).finally(() => (this.walking = undefined));
    return this.walking;
  }

  /** Forgets `host` (a connection to it failed, or it stopped accepting writes). */
  forget(host: HostAddress): void {
    if (this.known === host) this.known = undefined;
  }

  private async walk(config: Record<string, unknown>): Promise<HostAddress> {
    const tried: HostAnswer[] = [];
    for (const host of this.hosts) {
      const answer = await this.probe(host, config);
      if (answer === undefined) return (this.known = host);
      tried.push({ host: formatHost(host), answer });
    }
    throw new NoWritableHostError(
      tried,
      this.attrs === 'read-write' ? 'accepts writes' : 'accepts connections',
    );
  }

  /** Undefined when `host` will do, else what it answered. */
  private async probe(
    host: HostAddress,
    config: Record<string, unknown>,
  ): Promise<string | undefined> {
    const client = new this.Client({
      ...config,
      host: host.host,
      port: host.port,
      connectionTimeoutMillis: config.connectionTimeoutMillis || PROBE_TIMEOUT_MS,
    });
    // A client that failed to connect may still emit 'error'; the answer is already taken.
    (client as unknown as { on?(event: string, listener: () => void): void }).on?.(
      'error',
      () => undefined,
    );
    try {
      await client.connect();
      return this.attrs === 'read-write' ? await readOnlyAnswer(client) : undefined;
    } catch (error) {
      return describeAnswer(error, config.password as string | undefined);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
