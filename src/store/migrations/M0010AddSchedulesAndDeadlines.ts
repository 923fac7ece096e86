import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Time: cron schedules (one row each, with the next tick due), a run's deadline and the time
 * a queued run must start by, the index that finds a parent's children (cancellation reaches
 * them), and named leases (`waymark_locks`) so one sweeper at a time prunes old runs.
 */
export class M0010AddSchedulesAndDeadlines implements MigrationInterface {
  readonly name = 'M0010AddSchedulesAndDeadlines';

  // Idempotent pieces, as in M0001: MySQL cannot roll DDL back.
  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    const { Table, TableColumn, TableIndex } = typeorm();
    await queryRunner.createTable(
      new Table({
        name: 'waymark_schedules',
        columns: [
          { ...c.id('name'), isPrimary: true },
          c.id('workflow'),
          c.value('args', false),
          c.id('cron'),
          c.short('timezone'),
          c.short('catch_up'),
          c.int('paused', 0),
          c.millis('next_at'),
          c.millis('created_at'),
          c.millis('updated_at'),
        ],
        indices: [new TableIndex({ name: 'waymark_schedules_due', columnNames: ['next_at'] })],
      }),
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'waymark_locks',
        columns: [{ ...c.id('name'), isPrimary: true }, c.id('holder'), c.millis('expires_at')],
      }),
      true,
    );
    for (const name of ['deadline_at', 'start_by']) {
      if (!(await queryRunner.hasColumn('waymark_runs', name))) {
        await queryRunner.addColumn('waymark_runs', new TableColumn(c.millis(name, true)));
      }
    }
    const runs = await queryRunner.getTable('waymark_runs');
    const indices: Array<[string, string[]]> = [
      ['waymark_runs_parent', ['parent_run_id']],
      ['waymark_runs_deadline', ['deadline_at']],
      ['waymark_runs_start_by', ['start_by']],
      ['waymark_runs_status_updated', ['status', 'updated_at']],
    ];
    for (const [name, columnNames] of indices) {
      if (runs?.indices.some((i) => i.name === name)) continue;
      await queryRunner.createIndex('waymark_runs', new TableIndex({ name, columnNames }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of [
      'waymark_runs_status_updated',
      'waymark_runs_start_by',
      'waymark_runs_deadline',
      'waymark_runs_parent',
    ]) {
      await queryRunner.dropIndex('waymark_runs', name);
    }
    await queryRunner.dropColumn('waymark_runs', 'start_by');
    await queryRunner.dropColumn('waymark_runs', 'deadline_at');
    await queryRunner.dropTable('waymark_locks');
    await queryRunner.dropTable('waymark_schedules');
  }
}
