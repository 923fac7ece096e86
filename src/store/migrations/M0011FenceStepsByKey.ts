import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from '../connection/Dialect';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

const FENCE_KEY = 'waymark_steps_fence';
const RUN_EPOCH = 'waymark_runs_id_epoch';

/**
 * MySQL/MariaDB only: a step row names the run's `(id, epoch)` it was written under, as a
 * foreign key that a claim's epoch bump clears (`ON UPDATE SET NULL`). The step insert is
 * then fenced by that key check instead of an `INSERT … SELECT`, which InnoDB runs about
 * 12% slower per step (statements.ts). SQLite and PostgreSQL keep their fence.
 */
export class M0011FenceStepsByKey implements MigrationInterface {
  readonly name = 'M0011FenceStepsByKey';

  // Each piece only if missing: MySQL cannot roll DDL back (see M0001).
  async up(queryRunner: QueryRunner): Promise<void> {
    if (dialectOf(queryRunner.connection) !== 'mysql') return;
    const c = columnTypes(queryRunner);
    const columns = [c.id('fence_run_id', true), { ...c.int('fence_epoch'), isNullable: true }];
    for (const column of columns) {
      if (!(await queryRunner.hasColumn('waymark_steps', column.name))) {
        await queryRunner.addColumn('waymark_steps', new (typeorm().TableColumn)(column));
      }
    }
    const runs = await queryRunner.getTable('waymark_runs');
    if (!runs?.indices.some((index) => index.name === RUN_EPOCH)) {
      await queryRunner.query(`CREATE UNIQUE INDEX ${RUN_EPOCH} ON waymark_runs (id, epoch)`);
    }
    const steps = await queryRunner.getTable('waymark_steps');
    if (!steps?.foreignKeys.some((key) => key.name === FENCE_KEY)) {
      // The new columns are NULL in every row, so there is nothing to check; unchecked, MySQL
      // adds the key in place instead of copying a large table of steps.
      await queryRunner.query('SET SESSION foreign_key_checks = 0');
      try {
        await queryRunner.query(
          `ALTER TABLE waymark_steps ADD CONSTRAINT ${FENCE_KEY} FOREIGN KEY (fence_run_id, fence_epoch) ` +
            'REFERENCES waymark_runs (id, epoch) ON UPDATE SET NULL ON DELETE SET NULL',
        );
      } finally {
        await queryRunner.query('SET SESSION foreign_key_checks = 1');
      }
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (dialectOf(queryRunner.connection) !== 'mysql') return;
    await queryRunner.query(`ALTER TABLE waymark_steps DROP FOREIGN KEY ${FENCE_KEY}`);
    await queryRunner.query(`DROP INDEX ${RUN_EPOCH} ON waymark_runs`);
    await queryRunner.dropColumn('waymark_steps', 'fence_epoch');
    await queryRunner.dropColumn('waymark_steps', 'fence_run_id');
  }
}
