import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import { failoverPgClient } from '../../../../../src/store/connection/failover/failoverPgClient';
import type { PgClientClass } from '../../../../../src/store/connection/failover/WritableHostFinder';

const POSTMASTER_EXIT = 'terminating connection due to unexpected postmaster exit';

/**
 * A node-postgres client as far as the failover client uses it. With `dieAfterAnswer`, the
 * server's answer to a query is followed in the same tick by a FATAL error, as when a
 * PostgreSQL primary dies and both arrive in one packet.
 */
class FakeSession extends EventEmitter {
  static dieAfterAnswer = false;
  host = '';
  port = 0;

  constructor(readonly config: Record<string, unknown>) {
    super();
  }

  connect(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  query(): Promise<{ rows: Array<Record<string, unknown>> }> {
    return new Promise((resolve) =>
      setImmediate(() => {
        resolve({ rows: [{ recovery: false, read_only: 'off' }] });
        if (FakeSession.dieAfterAnswer) {
          this.emit('error', Object.assign(new Error(POSTMASTER_EXIT), { code: '57P01' }));
        }
      }),
    );
  }

  end(): Promise<void> {
    return Promise.resolve();
  }
}

const hosts = [
  { host: 'primary', port: 5433 },
  { host: 'standby', port: 5434 },
];

describe('a PostgreSQL host-list client whose server dies while it is being connected', () => {
  let pool: Pool;
  let Client: PgClientClass;

  beforeEach(() => {
    FakeSession.dieAfterAnswer = false;
    Client = failoverPgClient(FakeSession, hosts, 'read-write');
    pool = new Pool({ Client: Client as never, max: 2 });
  });

  afterEach(async () => {
    await pool.end();
  });

  it("fails the pool's connect with the server's error instead of killing the process", async () => {
    await pool.connect().then((client) => client.release()); // the host is found and known
    FakeSession.dieAfterAnswer = true;
    await expect(pool.connect()).rejects.toMatchObject({ code: '57P01', message: POSTMASTER_EXIT });
    FakeSession.dieAfterAnswer = false;
    const client = await pool.connect();
    // The pool removes its own listener while a client is out; the connect's is gone too.
    expect(client.listenerCount('error')).toBe(0);
    client.release();
  });

  it('fails a direct connect() the same way', async () => {
    FakeSession.dieAfterAnswer = true;
    const client = new Client({}) as unknown as EventEmitter & { connect(): Promise<unknown> };
    await expect(client.connect()).rejects.toMatchObject({ code: '57P01' });
    expect(client.listenerCount('error')).toBe(0);
  });
});
