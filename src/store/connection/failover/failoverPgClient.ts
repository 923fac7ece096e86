import { NoWritableHostError } from '../../../errors/NoWritableHostError';
import { formatHost, type HostAddress, type TargetSessionAttrs } from './HostList';
import {
  readOnlyAnswer,
  WritableHostFinder,
  type PgClient,
  type PgClientClass,
} from './WritableHostFinder';

type ConnectCallback = (error: Error | null, client?: PgClient) => void;

/**
 * A node-postgres `Client` class for a host list, given to the pool TypeORM creates (as its
 * `Client` option): each new connection goes to the host a {@link WritableHostFinder} picks,
 * and with `read-write` checks that the session really accepts writes before the pool hands
 * it out. A connection that fails, or lands on a standby, makes the finder look again, so
 * after a failover the pool's next connections go to the promoted standby. node-postgres
 * itself connects to one host only.
 */
export function failoverPgClient(
  Client: PgClientClass,
  hosts: readonly HostAddress[],
  attrs: TargetSessionAttrs,
): PgClientClass {
  const finder = new WritableHostFinder(Client, hosts, attrs);
  // Typed loosely: the subclass overrides both overloads of node-postgres's connect().
  const Base = Client as unknown as new (config: Record<string, unknown>) => Omit<
    PgClient,
    'connect'
  > & {
    connect(callback?: ConnectCallback): Promise<unknown> | undefined;
    connectionParameters?: { host: string; port: number };
    on(event: 'error', listener: (error: Error) => void): unknown;
    removeListener(event: 'error', listener: (error: Error) => void): unknown;
  };

  return class FailoverClient extends Base {
    /** An 'error' the session emitted before the caller had it (see connect()). */
    private lostWhileConnecting: Error | undefined;

    constructor(private readonly waymarkConfig: Record<string, unknown>) {
      super(waymarkConfig);
    }

    // Both forms of node-postgres's connect(): with a callback (the pool) or a promise.
    connect(callback?: ConnectCallback): Promise<PgClient> | undefined {
      // node-postgres hands a plain client to the pool in the same tick as its session
      // starts; this one is connected and then asked whether it takes writes, and until the
      // pool has it, nobody listens for its 'error'. A server that dies then (a failover:
      // "terminating connection due to unexpected postmaster exit" can arrive in the same
      // packet as the answer) would kill the process. The error fails the connect instead.
      const onError = (error: Error): void => void (this.lostWhileConnecting ??= error);
      this.on('error', onError);
      const connected = this.connectToTarget().then(() => this as unknown as PgClient);
      return handOver(connected, callback, () => this.removeListener('error', onError));
    }

    private async connectToTarget(): Promise<void> {
      const target = await finder.target(this.waymarkConfig);
      this.host = target.host;
      this.port = target.port;
      if (this.connectionParameters) {
        this.connectionParameters.host = target.host;
        this.connectionParameters.port = target.port;
      }
      try {
        await super.connect();
      } catch (error) {
        finder.forget(target);
        throw error;
      }
      const answer =
        attrs === 'read-write'
          ? await readOnlyAt(this as unknown as PgClient, finder, target)
          : undefined;
      if (answer !== undefined) {
        await this.end().catch(() => undefined);
        throw new NoWritableHostError([{ host: formatHost(target), answer }]);
      }
      const lost = this.lostWhileConnecting;
      if (lost) {
        finder.forget(target);
        await this.end().catch(() => undefined);
        throw lost;
      }
    }
  } as unknown as PgClientClass;
}

/**
 * Gives the caller the client `connected` settles with — through `callback` (the pool) or as
 * the promise — then calls `stop` (the pool adds its own 'error' listener once it has it).
 */
function handOver(
  connected: Promise<PgClient>,
  callback: ConnectCallback | undefined,
  stop: () => void,
): Promise<PgClient> | undefined {
  const handed = !callback
    ? connected
    : connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
  void handed.then(stop, stop);
  return callback ? undefined : connected;
}

/**
 * Why the session just connected to `target` cannot write (undefined: it can); the finder
 * forgets a host that cannot, or that does not answer (its session is then ended).
 */
async function readOnlyAt(
  client: PgClient,
  finder: WritableHostFinder,
  target: HostAddress,
): Promise<string | undefined> {
  try {
    const answer = await readOnlyAnswer(client);
    if (answer !== undefined) finder.forget(target);
    return answer;
  } catch (error) {
    finder.forget(target);
    await client.end().catch(() => undefined);
    throw error;
  }
}
