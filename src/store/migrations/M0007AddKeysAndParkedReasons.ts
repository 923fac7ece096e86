import type { MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { columnTypes } from './columnTypes';

/** The columns this migration adds, by table. */
const ADDED: ReadonlyArray<[table: string, column: string]> = [
  ['waymark_runs', 'parked_reason'],
  ['waymark_steps', 'idempotency_key'],
  ['waymark_attempts', 'idempotency_key'],
];

/**
 * What an operator needs to see what happened: why a run was parked (`parked_reason`, the
 * error's name and message in plain text, readable without the codec), and the key a step
 * with `@Idempotent({ key })` used (`idempotency_key`, null for the default `runId:seq`), on
 * its outcome and on its failed attempts, so `waymark show` prints the key a provider saw.
 */
export class M0007AddKeysAndParkedReasons implements MigrationInterface {
  readonly name = 'M0007AddKeysAndParkedReasons';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnTypes(queryRunner);
    for (const [table, column] of ADDED) {
      if (!(await queryRunner.hasColumn(table, column))) {
        await queryRunner.addColumn(table, new (typeorm().TableColumn)(c.value(column)));
      }
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of [...ADDED].reverse()) {
      await queryRunner.dropColumn(table, column);
    }
  }
}
