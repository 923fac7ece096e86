import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Failed attempts of retried steps, so a crash never resets a retry budget, and the step a
 * run is parked at (`needs_attention`) for operators to retry or resolve.
 */
export class M0002AddAttempts implements MigrationInterface {
  readonly name = 'M0002AddAttempts';

  // Idempotent pieces, as in M0001: MySQL cannot roll DDL back.
  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    await queryRunner.createTable(
      new (typeorm().Table)({
        name: 'waymark_attempts',
        columns: [
          { ...c.id('run_id'), isPrimary: true },
          { ...c.int('seq'), isPrimary: true },
          { ...c.int('attempt'), isPrimary: true },
          c.id('name'),
          c.short('status'),
          c.value('error'),
          c.millis('failed_at'),
          c.millis('next_at', true),
        ],
      }),
      true,
    );
    if (!(await queryRunner.hasColumn('waymark_runs', 'parked_seq'))) {
      await queryRunner.addColumn(
        'waymark_runs',
        new (typeorm().TableColumn)({ name: 'parked_seq', type: 'integer', isNullable: true }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('waymark_runs', 'parked_seq');
    await queryRunner.dropTable('waymark_attempts');
  }
}
