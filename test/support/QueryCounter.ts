import type { Logger as TypeOrmLogger } from 'typeorm';

/** A TypeORM logger that counts the statements sent to the database. */
export class QueryCounter implements TypeOrmLogger {
  readonly statements: string[] = [];

  logQuery(query: string): void {
    this.statements.push(query.trim());
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  reset(): void {
    this.statements.length = 0;
  }

  get writes(): string[] {
    return this.statements.filter((s) => /^(INSERT|UPDATE|DELETE)\b/i.test(s));
  }

  get reads(): string[] {
    return this.statements.filter((s) => /^SELECT\b/i.test(s));
  }
}
