import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Keys of `@Idempotent({ scope: 'global' })` steps, unique across all runs: who holds a key,
 * and the result once it completed.
 */
export class M0003AddIdempotencyKeys implements MigrationInterface {
  readonly name = 'M0003AddIdempotencyKeys';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    await queryRunner.createTable(
      new (typeorm().Table)({
        name: 'waymark_idempotency_keys',
        columns: [
          { ...c.id('idempotency_key'), isPrimary: true },
          c.id('run_id'),
          c.int('seq'),
          c.short('status'),
          c.value('output'),
          c.millis('created_at'),
          c.millis('updated_at'),
        ],
        indices: [
          new (typeorm().TableIndex)({ name: 'waymark_keys_run', columnNames: ['run_id', 'seq'] }),
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('waymark_idempotency_keys');
  }
}
