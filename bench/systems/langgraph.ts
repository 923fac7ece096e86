import { Annotation, END, START, StateGraph, entrypoint, task } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { Client } from 'pg';
import { channelOf } from '../lib/counter';
import { POSTGRES, POSTGRES_URL } from '../lib/databases';
import { freshId, stepResult, type StepResult, type System } from '../lib/workload';
import { POSTGRES_DB, SQLITE_FULL } from './waymark';

export const LANGGRAPH_SCHEMA = 'langgraph';

/**
 * The workload as a LangGraph StateGraph: one node that runs a step and loops back to
 * itself until N steps ran, so every step is a superstep and a checkpoint. The state keeps
 * every step's output (`results`, appended by a reducer), as a workflow's history does.
 */
const State = Annotation.Root({
  steps: Annotation<number>(),
  i: Annotation<number>(),
  results: Annotation<StepResult[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

const step = async (i: number): Promise<StepResult> => stepResult(i);

export function sequenceGraph(checkpointer: BaseCheckpointSaver, onStep?: (i: number) => void) {
  return new StateGraph(State)
    .addNode('step', async (s) => {
      onStep?.(s.i);
      return { i: s.i + 1, results: [await step(s.i)] };
    })
    .addEdge(START, 'step')
    .addConditionalEdges('step', (s) => (s.i < s.steps ? 'step' : END))
    .compile({ checkpointer });
}

/** The functional API: an entrypoint calling a task per step. */
export function sequenceEntrypoint(
  checkpointer: BaseCheckpointSaver,
  onStep?: (i: number) => void,
) {
  const stepTask = task('step', async (i: number) => {
    onStep?.(i);
    return step(i);
  });
  return entrypoint({ checkpointer, name: 'sequence' }, async (steps: number) => {
    let last = 0;
    for (let i = 0; i < steps; i++) last = (await stepTask(i)).i;
    return last;
  });
}

export type Durability = 'sync' | 'async';

/** A checkpointer on a SQLite file or on PostgreSQL (schema `langgraph` of the bench database). */
export interface Saver {
  readonly db: string;
  readonly channel: string;
  readonly saver: BaseCheckpointSaver;
  setup(): Promise<void>;
  close(): Promise<void>;
}

export function sqliteSaver(file: string): Saver {
  const saver = SqliteSaver.fromConnString(file);
  return {
    // SqliteSaver turns WAL on and leaves synchronous as it is; a WAL file opened again gets
    // SQLite's WAL default, NORMAL, so FULL is set here, as waymark's FULL row has it.
    db: SQLITE_FULL,
    channel: channelOf('sqlite', file),
    saver,
    async setup() {
      saver.db.pragma('synchronous = FULL');
      const synchronous = saver.db.pragma('synchronous', { simple: true });
      if (synchronous !== 2)
        throw new Error(`SqliteSaver opened with synchronous=${String(synchronous)}`);
    },
    async close() {
      saver.db.close();
    },
  };
}

export function postgresSaver(): Saver {
  const saver = PostgresSaver.fromConnString(POSTGRES_URL, { schema: LANGGRAPH_SCHEMA });
  return {
    db: POSTGRES_DB,
    channel: channelOf('pg', POSTGRES.database),
    saver,
    setup: () => saver.setup(),
    close: () => saver.end(),
  };
}

/** StateGraph, checkpointed by `saver`, in one durability mode. */
export class LangGraphSystem implements System {
  readonly label: string;
  readonly kind = 'peer' as const;
  readonly db: string;
  readonly channel: string;
  private readonly graph: ReturnType<typeof sequenceGraph>;

  constructor(
    version: string,
    saverName: string,
    private readonly saver: Saver,
    private readonly durability: Durability,
  ) {
    this.label =
      `LangGraph ${version} StateGraph + ${saverName}, ` +
      (durability === 'sync' ? "durability 'sync'" : "default durability ('async')");
    this.db = saver.db;
    this.channel = saver.channel;
    this.graph = sequenceGraph(saver.saver);
  }

  async open(): Promise<void> {
    // Each system runs in a process of its own (perStepChild.ts): it sets its saver up.
    await this.saver.setup();
  }

  async run(steps: number): Promise<string> {
    const threadId = freshId('lg');
    const out = await this.graph.invoke(
      { steps, i: 0 },
      {
        configurable: { thread_id: threadId },
        durability: this.durability,
        recursionLimit: steps + 10,
      },
    );
    if (out.i !== steps || out.results.length !== steps) throw new Error('LangGraph stopped early');
    return threadId;
  }

  /** Bytes stored for one thread, on PostgreSQL; undefined on SQLite (measured by file size). */
  storedBytes(threadId: string): Promise<number> | undefined {
    return this.db === POSTGRES_DB ? postgresThreadBytes(threadId) : undefined;
  }

  async close(): Promise<void> {
    await this.saver.close();
  }
}

/** The functional API (entrypoint/task), with durability 'sync'; not durable per step. */
export class LangGraphFunctionalSystem implements System {
  readonly label: string;
  readonly kind = 'not durable per step' as const;
  readonly db: string;
  readonly channel: string;
  private readonly flow: ReturnType<typeof sequenceEntrypoint>;

  constructor(
    version: string,
    saverName: string,
    private readonly saver: Saver,
  ) {
    this.label = `LangGraph ${version} functional API + ${saverName}, durability 'sync'`;
    this.db = saver.db;
    this.channel = saver.channel;
    this.flow = sequenceEntrypoint(saver.saver);
  }

  async open(): Promise<void> {
    await this.saver.setup();
  }

  async run(steps: number): Promise<string> {
    const threadId = freshId('lgf');
    const last = await this.flow.invoke(steps, {
      configurable: { thread_id: threadId },
      durability: 'sync',
    });
    if (last !== steps - 1) throw new Error('LangGraph functional stopped early');
    return threadId;
  }

  async close(): Promise<void> {
    await this.saver.close();
  }
}

/** Bytes LangGraph's PostgresSaver stored for one thread (its rows, as PostgreSQL sizes them). */
export async function postgresThreadBytes(threadId: string): Promise<number> {
  const pg = new Client(POSTGRES);
  await pg.connect();
  try {
    const parts = ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'].map(
      (t) =>
        `(SELECT COALESCE(SUM(pg_column_size(t.*)), 0) FROM ${LANGGRAPH_SCHEMA}.${t} t WHERE t.thread_id = $1)`,
    );
    const { rows } = await pg.query<{ bytes: string }>(`SELECT ${parts.join(' + ')} AS bytes`, [
      threadId,
    ]);
    return Number(rows[0].bytes);
  } finally {
    await pg.end();
  }
}
