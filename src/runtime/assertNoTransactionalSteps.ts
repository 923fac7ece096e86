import { readClassPolicies, type AnyClass } from '../decorators/metadata';
import { ConfigurationError } from '../errors/ConfigurationError';

/** Transactional steps commit with the application's rows, so they need its DataSource. */
export function assertNoTransactionalSteps(Class: AnyClass): void {
  const transactional = readClassPolicies(Class).find((p) => p.step?.transactional);
  if (!transactional) return;
  throw new ConfigurationError(
    `@Step on ${Class.name}.${transactional.methodName} is transactional, but Waymark.create() was given a ` +
      "URL or options, so waymark would open a database of its own; pass the application's TypeORM DataSource: " +
      'Waymark.create({ database: dataSource })',
  );
}
