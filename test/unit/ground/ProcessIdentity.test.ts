import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { holderIsAlive } from '../../../src/ground/ProcessIdentity';

/** Fields of /proc/<pid>/stat after the command name: [0] state, [19] start time. */
function statOf(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Waits for `check`, failing with `what` (and what /proc said) rather than hanging. */
async function until(what: string, check: () => boolean, seen: () => unknown): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting for ${what}; /proc shows ${JSON.stringify(seen())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

// A lease held on this host is taken over at once when its holder process is gone. A process
// killed under a parent that does not reap it stays a zombie, which still answers kill(pid, 0).
(process.platform === 'linux' ? describe : describe.skip)('holderIsAlive on Linux', () => {
  let parent: ChildProcess | undefined;

  afterEach(() => {
    parent?.kill('SIGKILL');
  });

  it('says a killed holder is gone even while it is an unreaped zombie', async () => {
    // The shell starts the holder, then becomes `sleep`, which never reaps its children.
    parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = Number(
      await new Promise<string>((resolve) =>
        parent!.stdout!.once('data', (d) => resolve(String(d))),
      ),
    );
    // Until the shell has become `sleep`, it may still reap the holder (dash waits on any
    // child), and the holder would vanish instead of turning into a zombie.
    const shell = parent.pid!;
    await until(
      'the shell to exec sleep',
      () => commandOf(shell) === 'sleep',
      () => commandOf(shell),
    );
    await until(
      'the holder to start',
      () => statOf(pid)?.[19] !== undefined,
      () => statOf(pid),
    );
    const holder = `${pid}:${statOf(pid)![19]}:runtime-1`;
    expect(holderIsAlive(holder)).toBe(true);

    process.kill(pid, 'SIGKILL');
    await until(
      'the holder to be a zombie',
      () => statOf(pid)?.[0] === 'Z',
      () => statOf(pid),
    );
    expect(holderIsAlive(holder)).toBe(false);
  });

  it('says a holder whose pid was reused by a later process is gone', async () => {
    parent = spawn('sleep', ['60'], { stdio: 'ignore' });
    await until(
      'sleep to start',
      () => statOf(parent!.pid!)?.[19] !== undefined,
      () => statOf(parent!.pid!),
    );
    const start = statOf(parent.pid!)![19];
    expect(holderIsAlive(`${parent.pid}:${start}:runtime-1`)).toBe(true);
    expect(holderIsAlive(`${parent.pid}:${Number(start) - 1}:runtime-1`)).toBe(false);
  });
});
