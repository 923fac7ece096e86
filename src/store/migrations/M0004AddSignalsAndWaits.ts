import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Signals sent to runs (kept in order, each consumed by one wait), what a waiting run waits
 * for, and the index workers use to find runs whose lease lapsed.
 */
export class M0004AddSignalsAndWaits implements MigrationInterface {
  readonly name = 'M0004AddSignalsAndWaits';

  // Idempotent pieces, as in M0001: MySQL cannot roll DDL back.
  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    await queryRunner.createTable(
      new (typeorm().Table)({
        name: 'waymark_signals',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          c.id('run_id'),
          c.id('name'),
          c.value('payload'),
          { name: 'consumed_seq', type: 'integer', isNullable: true },
          c.millis('created_at'),
        ],
        indices: [
          new (typeorm().TableIndex)({
            name: 'waymark_signals_run',
            columnNames: ['run_id', 'name', 'id'],
          }),
        ],
      }),
      true,
    );
    if (!(await queryRunner.hasColumn('waymark_runs', 'waiting_for'))) {
      await queryRunner.addColumn(
        'waymark_runs',
        new (typeorm().TableColumn)({ ...c.id('waiting_for', true) }),
      );
    }
    const runs = await queryRunner.getTable('waymark_runs');
    if (!runs?.indices.some((i) => i.name === 'waymark_runs_status_lease')) {
      await queryRunner.createIndex(
        'waymark_runs',
        new (typeorm().TableIndex)({
          name: 'waymark_runs_status_lease',
          columnNames: ['status', 'lease_expires_at'],
        }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('waymark_runs', 'waymark_runs_status_lease');
    await queryRunner.dropColumn('waymark_runs', 'waiting_for');
    await queryRunner.dropTable('waymark_signals');
  }
}
