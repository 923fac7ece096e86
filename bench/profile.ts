/**
 * Where waymark's per-step time goes on a SQLite file: a CPU profile of sequential runs,
 * summarised by self time per function and by file (the top of the table). The floor's
 * equivalent is one prepared INSERT per step.
 *
 *   node -r @swc-node/register bench/profile.ts [--steps 2000] [--runs 5] [--db URL]
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Waymark } from 'waymark';
import { Sequence } from './fixtures/Sequence';
import { freshId } from './lib/workload';
import { quiet } from './systems/waymark';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) =>
      error ? reject(error) : resolve(result as T),
    ),
  );
}

async function main(): Promise<void> {
  const steps = Number(arg('--steps', '2000'));
  const runs = Number(arg('--runs', '5'));
  const dir = mkdtempSync(join(tmpdir(), 'waymark-profile-'));
  const database = arg('--db', `sqlite:${join(dir, 'profile.db')}`);
  const runtime = await Waymark.create({ database, logger: quiet });
  const session = new Session();
  session.connect();
  try {
    await runtime.run(Sequence, 'run', [freshId('warm'), 500]);
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
    await post(session, 'Profiler.start');
    for (let r = 0; r < runs; r++) await runtime.run(Sequence, 'run', [freshId('prof'), steps]);
    const { profile } = await post<{ profile: Profiler.Profile }>(session, 'Profiler.stop');
    summarise(profile, steps * runs);
  } finally {
    session.disconnect();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarise(profile: Profiler.Profile, totalSteps: number): void {
  const self = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let all = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    all += t;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url
      ? relative(process.cwd(), url.replace(/^file:\/\//, ''))
      : `(${functionName || 'native'})`;
    const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + t);
    const area = file.startsWith('src/')
      ? file
      : file.includes('node_modules/')
        ? file.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, 'node_modules/$1')
        : file;
    byFile.set(area, (byFile.get(area) ?? 0) + t);
  }
  const show = (title: string, m: Map<string, number>, n: number): void => {
    console.log(`\n${title} (µs per step, % of samples)`);
    for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
      console.log(
        `${(t / totalSteps).toFixed(1).padStart(7)}  ${((100 * t) / all).toFixed(1).padStart(5)}%  ${k}`,
      );
  };
  console.log(`${(all / totalSteps).toFixed(1)} µs of samples per step over ${totalSteps} steps`);
  show('by file / package', byFile, 25);
  show('by function', byFunction, 30);
}

void main();
