import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Who holds a run's lease, precisely (host, process), so a run held by a process that no
 * longer exists on this host is taken over at once; and a token unique to each claim, so a
 * claim retried through a lost connection knows for certain whether its first try landed.
 */
export class M0006AddLeaseHolders implements MigrationInterface {
  readonly name = 'M0006AddLeaseHolders';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    const columns = [
      c.id('lease_host', true),
      c.id('lease_process', true),
      c.short('claim_token', true),
    ];
    for (const column of columns) {
      if (!(await queryRunner.hasColumn('waymark_runs', column.name))) {
        await queryRunner.addColumn('waymark_runs', new (typeorm().TableColumn)(column));
      }
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['claim_token', 'lease_process', 'lease_host']) {
      await queryRunner.dropColumn('waymark_runs', name);
    }
  }
}
