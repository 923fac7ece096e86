import { DBOS } from '@dbos-inc/dbos-sdk';
import { Client } from 'pg';
import { channelOf } from '../lib/counter';
import { DBOS_DATABASE, DBOS_URL, POSTGRES, recreatePostgres } from '../lib/databases';
import { freshId, stepResult, type StepResult, type System } from '../lib/workload';
import { POSTGRES_DB } from './waymark';

let sequence: ((steps: number) => Promise<number>) | undefined;

/**
 * The bench's workflow, registered once per process: DBOS refuses a second registration of
 * a name, and the bench's sections each make their own DbosSystem.
 */
function registeredSequence(): (steps: number) => Promise<number> {
  const step = async (i: number): Promise<StepResult> => stepResult(i);
  return (sequence ??= DBOS.registerWorkflow(
    async (steps: number) => {
      let last = 0;
      for (let i = 0; i < steps; i++)
        last = (await DBOS.runStep(() => step(i), { name: 'step' })).i;
      return last;
    },
    { name: 'sequence' },
  ));
}

/**
 * DBOS Transact as its documentation shows it: a registered workflow whose steps are
 * `DBOS.runStep` calls, checkpointed in the DBOS system database (a fresh PostgreSQL
 * database of its own on the same server).
 */
export class DbosSystem implements System {
  readonly label: string;
  readonly kind = 'peer' as const;
  readonly db = POSTGRES_DB;
  readonly channel = channelOf('pg', DBOS_DATABASE);
  private readonly sequence: (steps: number) => Promise<number>;

  constructor(version: string) {
    this.label = `DBOS Transact ${version}`;
    this.sequence = registeredSequence();
  }

  async open(): Promise<void> {
    await recreatePostgres(DBOS_DATABASE);
    DBOS.setConfig({ name: 'waymark-bench', systemDatabaseUrl: DBOS_URL, logLevel: 'error' });
    await DBOS.launch();
  }

  async run(steps: number): Promise<string> {
    const id = freshId('dbos');
    await this.runWithId(id, steps);
    return id;
  }

  async runWithId(id: string, steps: number): Promise<void> {
    const sequence = this.sequence; // a plain function workflow: not called on an instance
    const last = await DBOS.withNextWorkflowID(id, () => sequence(steps));
    if (last !== steps - 1) throw new Error(`DBOS returned ${last}`);
  }

  /** Bytes DBOS stored for one workflow (its rows, as PostgreSQL sizes them). */
  async storedBytes(id: string): Promise<number> {
    const pg = new Client({ ...POSTGRES, database: DBOS_DATABASE });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ bytes: string }>(
        'SELECT (SELECT COALESCE(SUM(pg_column_size(o.*)), 0) FROM dbos.operation_outputs o WHERE o.workflow_uuid = $1) + ' +
          '(SELECT COALESCE(SUM(pg_column_size(w.*)), 0) FROM dbos.workflow_status w WHERE w.workflow_uuid = $1) AS bytes',
        [id],
      );
      return Number(rows[0].bytes);
    } finally {
      await pg.end();
    }
  }

  async close(): Promise<void> {
    await DBOS.shutdown();
  }
}
