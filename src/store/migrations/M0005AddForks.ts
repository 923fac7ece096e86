import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/** Where a forked run came from: the run and the sequence number it was forked at. */
export class M0005AddForks implements MigrationInterface {
  readonly name = 'M0005AddForks';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    if (!(await queryRunner.hasColumn('waymark_runs', 'forked_from'))) {
      await queryRunner.addColumn(
        'waymark_runs',
        new (typeorm().TableColumn)({ ...c.id('forked_from', true) }),
      );
    }
    if (!(await queryRunner.hasColumn('waymark_runs', 'forked_seq'))) {
      await queryRunner.addColumn(
        'waymark_runs',
        new (typeorm().TableColumn)({ name: 'forked_seq', type: 'integer', isNullable: true }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('waymark_runs', 'forked_seq');
    await queryRunner.dropColumn('waymark_runs', 'forked_from');
  }
}
