import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Named queues and limiters, enforced through the database across every worker process:
 * a run's queue, partition key, priority, dedupe key and first start; one row per queue and
 * per limiter (`kind` says which) (the lock its claims take, a limiter's stored pause); a limiter's slots (who
 * holds one, until when); when each partition key of a queue last had a run started (keys take turns); and the dedupe
 * keys of queued or running runs.
 */
export class M0009AddQueuesAndLimiters implements MigrationInterface {
  readonly name = 'M0009AddQueuesAndLimiters';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    await addQueueColumns(queryRunner, c);
    await createFlowTables(queryRunner, c);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'waymark_dedupe_keys',
      'waymark_limiter_slots',
      'waymark_queue_turns',
      'waymark_queues',
    ]) {
      await queryRunner.dropTable(table, true);
    }
    await queryRunner.dropIndex('waymark_runs', 'waymark_runs_queue_starts');
    await queryRunner.dropIndex('waymark_runs', 'waymark_runs_queue');
    for (const name of ['started_at', 'priority', 'partition_key', 'queue_name']) {
      await queryRunner.dropColumn('waymark_runs', name);
    }
  }
}

type Columns = ReturnType<typeof columnTypes>;

/** A run's queue, partition key, priority and first start, with the indices claims use. */
async function addQueueColumns(queryRunner: QueryRunner, c: Columns): Promise<void> {
  const { TableColumn, TableIndex } = typeorm();
  const columns = [
    c.id('queue_name', true),
    c.id('partition_key', true),
    c.int('priority', 0),
    c.millis('started_at', true),
  ];
  for (const column of columns) {
    if (!(await queryRunner.hasColumn('waymark_runs', column.name))) {
      await queryRunner.addColumn('waymark_runs', new TableColumn(column));
    }
  }
  // Re-run after an interruption (MySQL cannot roll DDL back): add only what is missing.
  const runs = await queryRunner.getTable('waymark_runs');
  const indices = [
    { name: 'waymark_runs_queue', columnNames: ['queue_name', 'status'] },
    { name: 'waymark_runs_queue_starts', columnNames: ['queue_name', 'started_at'] },
  ];
  for (const index of indices) {
    if (runs?.indices.some((existing) => existing.name === index.name)) continue;
    await queryRunner.createIndex('waymark_runs', new TableIndex(index));
  }
}

/** The rows of queues and limiters, limiter slots, partition turns and dedupe keys. */
async function createFlowTables(queryRunner: QueryRunner, c: Columns): Promise<void> {
  const { Table, TableIndex } = typeorm();
  await queryRunner.createTable(
    new Table({
      name: 'waymark_queues',
      columns: [
        { ...c.short('kind'), isPrimary: true },
        { ...c.id('name'), isPrimary: true },
        c.value('config'),
        c.millis('paused_until', true),
        c.millis('lock_version', true),
        c.millis('updated_at'),
      ],
    }),
    true,
  );
  await queryRunner.createTable(
    new Table({
      name: 'waymark_queue_turns',
      columns: [
        { ...c.id('queue_name'), isPrimary: true },
        { ...c.id('partition_key'), isPrimary: true },
        c.millis('last_started_at'),
      ],
    }),
    true,
  );
  await queryRunner.createTable(
    new Table({
      name: 'waymark_limiter_slots',
      columns: [
        { ...c.short('id'), isPrimary: true },
        c.id('limiter'),
        c.id('run_id', true),
        c.millis('acquired_at'),
        c.millis('expires_at'),
        c.millis('released_at', true),
      ],
      indices: [
        new TableIndex({
          name: 'waymark_slots_limiter',
          columnNames: ['limiter', 'acquired_at'],
        }),
      ],
    }),
    true,
  );
  await queryRunner.createTable(
    new Table({
      name: 'waymark_dedupe_keys',
      columns: [
        { ...c.id('queue_name'), isPrimary: true },
        { ...c.id('dedupe_key'), isPrimary: true },
        c.id('run_id'),
        c.millis('created_at'),
      ],
    }),
    true,
  );
}
