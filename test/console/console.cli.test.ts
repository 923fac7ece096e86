import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Waymark } from 'waymark';
import { hashConsoleToken } from '../../src/console';
import { ConsoleShop, SCRIPT_PAYLOAD } from './fixtures/ConsoleShop';

const REPO = resolve(__dirname, '../..');
const URL_LINE = /waymark console: (http:\/\/127\.0\.0\.1:\d+\/)#token=(\S+)/;

let scratch: string;
let database: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'waymark-console-cli-'));
  database = `sqlite:${join(scratch, 'waymark.db')}`;
  const runtime = await Waymark.create({ database });
  try {
    await runtime.run(ConsoleShop, 'echo', ['cli']);
  } finally {
    await runtime.close();
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `waymark console …args` from source, in a child process. */
function startCli(args: readonly string[], env: Record<string, string> = {}) {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('WAYMARK_CONSOLE_TOKEN' in env)) delete environment.WAYMARK_CONSOLE_TOKEN;
  if (!('WAYMARK_CONSOLE_TOKENS' in env)) delete environment.WAYMARK_CONSOLE_TOKENS;
  if (!('WAYMARK_STREAM_TOKEN_SECRET' in env)) delete environment.WAYMARK_STREAM_TOKEN_SECRET;
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'src/cli/main.ts', 'console', '--db', database, ...args],
    { cwd: REPO, env: environment, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const exited = new Promise<number | null>((done) =>
    child.once('close', (code) => {
      clearTimeout(watchdog);
      done(code);
    }),
  );
  return { child, output, exited };
}

async function waitForLine(output: { stdout: string; stderr: string }): Promise<RegExpExecArray> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = URL_LINE.exec(output.stdout);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no console URL in ${JSON.stringify(output)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('waymark console', () => {
  it('prints the URL with a new token, serves the runs, and stops on SIGTERM', async () => {
    const cli = startCli(['--port', '0']);
    try {
      const [, url, token] = await waitForLine(cli.output);
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      const list = await fetch(`${url}api/runs`, { headers: { authorization: `Bearer ${token}` } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { runs: unknown[] }).runs).toMatchObject([
        { runId: 'echo-cli', status: 'completed' },
      ]);
      const shown = await fetch(`${url}api/runs/echo-cli`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(((await shown.json()) as { outcome: unknown }).outcome).toEqual({
        result: SCRIPT_PAYLOAD,
      });
      expect((await fetch(`${url}api/runs`)).status).toBe(401);
    } finally {
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exited).toBe(0);
    expect(cli.output.stdout).toContain('console stopped');
    expect(cli.output.stderr).toBe('');
  });

  it('takes the token from WAYMARK_CONSOLE_TOKEN without printing it, and fails (exit 1) on a port in use', async () => {
    const taken: Server = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    try {
      const port = (taken.address() as AddressInfo).port;
      const cli = startCli(['--port', String(port)], {
        WAYMARK_CONSOLE_TOKEN: ' from-env-0123456789\n',
      });
      expect(await cli.exited).toBe(1);
      expect(cli.output.stderr).toContain(`cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
      const served = startCli(['--port', '0'], { WAYMARK_CONSOLE_TOKEN: ' from-env-0123456789\n' });
      try {
        expect((await waitForLine(served.output))[2]).toBe('<WAYMARK_CONSOLE_TOKEN>');
        expect(served.output.stdout + served.output.stderr).not.toContain('from-env-0123456789');
      } finally {
        served.child.kill('SIGTERM');
      }
      expect(await served.exited).toBe(0);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it('warns that --token is visible in the process list, and refuses one that could never match', async () => {
    const served = startCli(['--port', '0', '--token', 'on-the-command-line-0123']);
    try {
      expect((await waitForLine(served.output))[2]).toBe('on-the-command-line-0123');
      expect(served.output.stderr).toContain(
        'warning: --token is visible to other users of this machine in the process list (ps); ' +
          'set WAYMARK_CONSOLE_TOKEN instead',
      );
    } finally {
      served.child.kill('SIGTERM');
    }
    expect(await served.exited).toBe(0);
    const short = startCli(['--port', '0', '--token', 'short']);
    expect(await short.exited).toBe(2);
    expect(short.output.stderr).toContain('--token must be at least 16 characters long, got 5');
    const spaced = startCli(['--port', '0'], { WAYMARK_CONSOLE_TOKEN: 'two words-0123456789' });
    expect(await spaced.exited).toBe(2);
    expect(spaced.output.stderr).toContain('WAYMARK_CONSOLE_TOKEN must not contain whitespace');
  });

  it('takes tokens with roles from --tokens-file and WAYMARK_CONSOLE_TOKENS, generating none', async () => {
    const file = join(scratch, 'tokens');
    const viewer = 'viewer-token-0123456789';
    const admin = 'admin-token-0123456789';
    writeFileSync(file, `# console tokens\nviewer:${hashConsoleToken(viewer)}:desk\n`);
    const served = startCli(['--port', '0', '--tokens-file', file], {
      WAYMARK_CONSOLE_TOKENS: `admin:${hashConsoleToken(admin)}:root`,
    });
    try {
      const [, url, shown] = await waitForLine(served.output);
      expect(shown).toBe('<your-token>');
      const as = (token: string, init: RequestInit = {}) =>
        fetch(`${url}api/runs/echo-cli/cancel`, {
          ...init,
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
      const list = await fetch(`${url}api/runs`, {
        headers: { authorization: `Bearer ${viewer}` },
      });
      expect(list.status).toBe(200);
      expect((await as(viewer)).status).toBe(403);
      expect((await as(admin)).status).toBe(409); // allowed, but the run has ended
    } finally {
      served.child.kill('SIGTERM');
    }
    expect(await served.exited).toBe(0);
    writeFileSync(file, 'viewer:not-a-hash\n');
    const malformed = startCli(['--port', '0', '--tokens-file', file]);
    expect(await malformed.exited).toBe(2);
    expect(malformed.output.stderr).toContain(
      `--tokens-file ${file}, line 1: the token must be given as its SHA-256 hash`,
    );
    writeFileSync(file, '# none yet\n');
    const empty = startCli(['--port', '0', '--tokens-file', file]);
    expect(await empty.exited).toBe(2);
    expect(empty.output.stderr).toContain(`no token in --tokens-file ${file}`);
  });

  it('serves a stream to an allowed origin with a stream token of a runtime with the same secret', async () => {
    const secret = 'the-applications-stream-token-secret-0123';
    const served = startCli(['--port', '0', '--stream-origin', 'http://shop.localhost'], {
      WAYMARK_STREAM_TOKEN_SECRET: secret,
    });
    const runtime = await Waymark.create({ database, streamTokenSecret: secret, migrate: false });
    try {
      const [, url] = await waitForLine(served.output);
      const token = runtime.streamToken('echo-cli', 'llm');
      const read = await fetch(`${url}api/streams/echo-cli/llm?token=${token}`, {
        headers: { origin: 'http://shop.localhost' },
      });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBe('http://shop.localhost');
      expect(await read.text()).toContain('event: end');
      const another = await fetch(`${url}api/streams/echo-cli/other?token=${token}`);
      expect(another.status).toBe(403);
    } finally {
      served.child.kill('SIGTERM');
      await runtime.close();
    }
    expect(await served.exited).toBe(0);
    expect(served.output.stderr).toBe('');
    const bad = startCli(['--port', '0', '--stream-origin', 'shop.localhost']);
    expect(await bad.exited).toBe(2);
    expect(bad.output.stderr).toContain('--stream-origin: "shop.localhost" is not an origin');
  });

  it('refuses an empty --host (exit 2) instead of listening on every interface', async () => {
    const cli = startCli(['--port', '0', '--host', '']);
    expect(await cli.exited).toBe(2);
    expect(cli.output.stderr).toContain('--host must name an address');
    expect(cli.output.stdout).not.toContain('waymark console: http');
  });
});
