/**
 * Crash and resume, with real processes: a run is SIGKILLed inside step #killAt (the
 * (killAt + 1)-th step; steps 0 … killAt − 1 had completed), then a new process resumes it.
 * Reports the time to resume and finish, which steps ran again, and the statements the
 * resume issued (history queries among them).
 *
 *   node -r @swc-node/register bench/resume.ts [--quick]
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResumeReport } from './fixtures/resumeChild';
import { BENCH_DIR } from './lib/install';
import { freshId } from './lib/workload';

export type ResumeSystem = `waymark:${number}` | 'langgraph-functional' | 'langgraph-graph';

function child(
  args: string[],
): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(BENCH_DIR, 'fixtures', 'resumeChild.ts'), ...args],
      { cwd: join(BENCH_DIR, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.once('error', reject);
    proc.once('exit', (code, signal) => resolve({ code, signal, out }));
  });
}

/** Kill a run of `steps` steps in step #killAt, resume it in a new process. */
export async function crashAndResume(
  system: ResumeSystem,
  dir: string,
  steps: number,
  killAt: number,
): Promise<ResumeReport> {
  const runId = freshId('resume');
  const args = [system, dir, runId, String(steps), String(killAt)];
  const first = await child(['run', ...args]);
  if (first.signal !== 'SIGKILL')
    throw new Error(`${system}: the first process was not killed (exit ${String(first.code)})`);
  const second = await child(['resume', ...args]);
  if (second.code !== 0) throw new Error(`${system}: resume failed (exit ${String(second.code)})`);
  return JSON.parse(second.out.trim().split('\n').pop()!) as ResumeReport;
}

if (require.main === module) {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-resume-'));
  void (async () => {
    try {
      for (const system of ['langgraph-functional', 'langgraph-graph'] as ResumeSystem[]) {
        console.log(system, JSON.stringify(await crashAndResume(system, dir, 1000, 900)));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
}
