import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/** Runs and their step history: the tables every other feature builds on. */
export class M0001CreateRunsAndSteps implements MigrationInterface {
  readonly name = 'M0001CreateRunsAndSteps';

  // Each table is created only if missing: MySQL cannot roll back DDL, so a process killed
  // halfway through this migration must be able to run it again.
  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    await queryRunner.createTable(
      new (typeorm().Table)({
        name: 'waymark_runs',
        columns: [
          { ...c.id('id'), isPrimary: true },
          c.id('workflow'),
          c.short('version', true),
          c.short('status'),
          c.value('args', false),
          c.value('result'),
          c.value('error'),
          c.id('owner', true),
          c.int('epoch', 0),
          c.millis('lease_expires_at', true),
          c.millis('wake_at', true),
          c.id('parent_run_id', true),
          c.millis('created_at'),
          c.millis('updated_at'),
        ],
        indices: [
          new (typeorm().TableIndex)({
            name: 'waymark_runs_status_wake',
            columnNames: ['status', 'wake_at'],
          }),
          new (typeorm().TableIndex)({
            name: 'waymark_runs_workflow',
            columnNames: ['workflow', 'created_at'],
          }),
          new (typeorm().TableIndex)({ name: 'waymark_runs_created', columnNames: ['created_at'] }),
        ],
      }),
      true,
    );
    await queryRunner.createTable(
      new (typeorm().Table)({
        name: 'waymark_steps',
        columns: [
          { ...c.id('run_id'), isPrimary: true },
          { ...c.int('seq'), isPrimary: true },
          c.id('name'),
          c.short('status'),
          c.value('output'),
          c.int('attempts', 1),
          c.millis('started_at'),
          c.millis('finished_at', true),
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('waymark_steps');
    await queryRunner.dropTable('waymark_runs');
  }
}
