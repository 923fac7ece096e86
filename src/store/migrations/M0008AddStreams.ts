import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/**
 * Durable streams: the chunks a run writes with `ctx.stream(name)`, stored a batch per row
 * (offsets `first_offset` to `first_offset + chunk_count - 1`), in order, keyed so that two
 * writers can never store the same offset twice.
 */
export class M0008AddStreams implements MigrationInterface {
  readonly name = 'M0008AddStreams';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    await queryRunner.createTable(
      new (typeorm().Table)({
        name: 'waymark_stream_chunks',
        columns: [
          { ...c.id('run_id'), isPrimary: true },
          { ...c.id('stream'), isPrimary: true },
          { ...c.int('first_offset'), isPrimary: true },
          c.int('chunk_count'),
          c.value('chunks', false),
          // A restart marker at first_offset (JSON: step, seq, attempt), or null.
          c.value('restart'),
          c.int('closed', 0),
          { name: 'step_seq', type: 'integer', isNullable: true },
          c.millis('created_at'),
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('waymark_stream_chunks', true);
  }
}
