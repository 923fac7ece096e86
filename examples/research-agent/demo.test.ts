import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { FakeLlm, LLM } from './Llm';
import { RESEARCH_STEPS, ResearchAgent, researchRunId, type ResearchReport } from './ResearchAgent';

const ROOT = resolve(__dirname, '..', '..');
const TOPIC = 'durable execution for AI agents';

describe('npm run demo', () => {
  let demo: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    demo = await runDemo();
  });

  it('exits 0 and says the resumed result is identical to the uninterrupted one', () => {
    expect({ code: demo.code, stderr: demo.stderr }).toEqual({ code: 0, stderr: '' });
    expect(demo.stdout).toMatch(
      /^✔ 2 steps skipped \(plan, searchWeb\), 2 ran \(readSources, summarize\); the result is identical to the uninterrupted run's\.$/m,
    );
  });

  it('kills the first worker with SIGKILL right after its second step is checkpointed', () => {
    const first = section(demo.stdout, 'worker 1');
    expect(steps(first, 'ran')).toEqual(['plan', 'searchWeb']);
    expect(steps(first, 'skipped')).toEqual([]);
    expect(demo.stdout).toMatch(
      /^✖ killed worker 1 with SIGKILL .* \(it ended by signal SIGKILL\)$/m,
    );
  });

  it('the second worker skips exactly the checkpointed steps and runs the rest', () => {
    const second = section(demo.stdout, 'worker 2');
    expect(steps(second, 'skipped')).toEqual(['plan', 'searchWeb']);
    expect(steps(second, 'ran')).toEqual(['readSources', 'summarize']);
  });

  it('the resumed run returns what an uninterrupted run on a fresh database returns', () => {
    const reference = section(demo.stdout, 'reference');
    expect(reference).toContain(`  ran      ${RESEARCH_STEPS.join(', ')}`);
    const summary = (lines: string[]): string | undefined =>
      lines.find((line) => line.startsWith('  summary  '));
    expect(summary(section(demo.stdout, 'worker 2'))).toMatch(/sources agree/);
    expect(summary(section(demo.stdout, 'worker 2'))).toBe(summary(reference));
  });
});

describe('ResearchAgent under the test runtime', () => {
  let scope: DependencyContainer;
  let runtime: TestRuntime;

  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    scope.register(LLM, { useClass: FakeLlm });
    runtime = await createTestRuntime({ container: scope });
  });
  afterEach(async () => {
    await runtime.close();
  });

  it('a crash right after searchWeb is checkpointed resumes without running plan or searchWeb again', async () => {
    const agent = scope.resolve(ResearchAgent);
    runtime.crash.afterCommit('ResearchAgent.searchWeb');
    await expect(agent.research(TOPIC)).rejects.toThrow(SimulatedCrash);
    expect(runtime).toHaveExecutedStepTimes('ResearchAgent.readSources', 0);

    runtime = await runtime.restart();
    const report = await agent.research(TOPIC);

    for (const step of RESEARCH_STEPS) {
      expect(runtime).toHaveExecutedStepTimes(`ResearchAgent.${step}`, 1);
    }
    await expect(runtime.handle(researchRunId(TOPIC))).toHaveCompletedSteps(RESEARCH_STEPS);
    await expect(runtime.handle(researchRunId(TOPIC))).toHaveRunStatus('completed');
    expect(report).toEqual(await uninterruptedReport(TOPIC));
  });
});

/** The report of a run that is never interrupted, on a database of its own. */
async function uninterruptedReport(topic: string): Promise<ResearchReport> {
  const scope = rootContainer.createChildContainer();
  scope.register(LLM, { useClass: FakeLlm });
  const runtime = await createTestRuntime({ container: scope });
  try {
    return await scope.resolve(ResearchAgent).research(topic);
  } finally {
    await runtime.close();
  }
}

/** Runs the demo exactly as `npm run demo` does. */
function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'examples/research-agent/demo.ts'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/** The lines of the demo's `▶ <heading>…` section, up to the next blank line. */
function section(output: string, heading: string): string[] {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`▶ ${heading}`));
  if (start < 0) throw new Error(`no "▶ ${heading}" section in the demo output:\n${output}`);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The step names of a section's `ran` or `skipped` lines, in order. */
function steps(lines: string[], what: 'ran' | 'skipped'): string[] {
  return lines.flatMap((line) => {
    const match = /^ {2}(ran|skipped) +(\S+) +\(/.exec(line);
    return match?.[1] === what ? [match[2]] : [];
  });
}
