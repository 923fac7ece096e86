import { join } from 'node:path';
import { floors } from './floors';
import { versionOf } from './lib/install';
import type { System } from './lib/workload';
import { stepInsertSystems } from './systems/stepInsert';
import * as waymark from './systems/waymark';

/**
 * Every system of the per-step section, each with a key that names it across processes.
 * The peers are loaded here only: the caller installs them first.
 */
export function perStepSystems(dir: string): System[] {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { DbosSystem } = require('./systems/dbos') as typeof import('./systems/dbos');
  const langgraph = require('./systems/langgraph') as typeof import('./systems/langgraph');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sqliteSaver = langgraph.sqliteSaver(join(dir, 'langgraph.db'));
  const postgresSaver = langgraph.postgresSaver();
  const lg = versionOf('@langchain/langgraph');
  return [
    ...waymark.waymarkSystems(dir),
    ...floors(dir),
    ...stepInsertSystems(waymark.waymarkDatabases(join(dir, 'statement'))),
    new DbosSystem(versionOf('@dbos-inc/dbos-sdk')),
    new langgraph.LangGraphSystem(lg, 'SqliteSaver', sqliteSaver, 'sync'),
    new langgraph.LangGraphSystem(lg, 'SqliteSaver', sqliteSaver, 'async'),
    new langgraph.LangGraphSystem(lg, 'PostgresSaver', postgresSaver, 'sync'),
    new langgraph.LangGraphSystem(lg, 'PostgresSaver', postgresSaver, 'async'),
    new langgraph.LangGraphFunctionalSystem(lg, 'SqliteSaver', sqliteSaver),
    new langgraph.LangGraphFunctionalSystem(lg, 'PostgresSaver', postgresSaver),
  ];
}

/** The key of a system: its label and database, unique in the list. */
export const systemKey = (system: Pick<System, 'label' | 'db'>): string =>
  `${system.label} | ${system.db}`;
