import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MAX_SIGNAL_KEY_LENGTH } from '../../model/identifiers';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

const KEY_INDEX = 'waymark_signals_key';

/**
 * Signals sent with an idempotency key (`signal(runId, name, payload, { idempotencyKey })`):
 * the key, and a unique index over `(run_id, name, idempotency_key)` so that two sends of one
 * key store one signal whatever races them. Signals without a key store NULL, which every
 * backend's unique index lets repeat. The key is at most 200 characters, so the index stays
 * within InnoDB's 3072-byte limit (255 + 255 + 200 characters of utf8mb4).
 */
export class M0012AddSignalKeys implements MigrationInterface {
  readonly name = 'M0012AddSignalKeys';

  // Each piece only if missing: MySQL cannot roll DDL back (see M0001).
  async up(queryRunner: QueryRunner): Promise<void> {
    const { TableColumn, TableIndex } = typeorm();
    if (!(await queryRunner.hasColumn('waymark_signals', 'idempotency_key'))) {
      const column = columnTypes(queryRunner).id('idempotency_key', true);
      await queryRunner.addColumn(
        'waymark_signals',
        new TableColumn({ ...column, length: String(MAX_SIGNAL_KEY_LENGTH) }),
      );
    }
    const signals = await queryRunner.getTable('waymark_signals');
    if (!signals?.indices.some((index) => index.name === KEY_INDEX)) {
      await queryRunner.createIndex(
        'waymark_signals',
        new TableIndex({
          name: KEY_INDEX,
          columnNames: ['run_id', 'name', 'idempotency_key'],
          isUnique: true,
        }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('waymark_signals', KEY_INDEX);
    await queryRunner.dropColumn('waymark_signals', 'idempotency_key');
  }
}
