import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a lease, precisely enough to tell on the same host whether the holder still
 * exists: the host (name, boot and PID namespace, so two containers or two boots never look
 * alike), and the process (pid, its start time against pid reuse, and which runtime in it).
 */
export interface LeaseHolder {
  /** The runtime's worker id (`workerId` option), shown to people. */
  readonly owner: string;
  /** This host and PID namespace: pids are comparable only between equal `host`s. */
  readonly host: string;
  /** `pid:start:runtime`, where `start` is the process start time from `/proc` (or empty). */
  readonly process: string;
}

const LIVE_RUNTIMES = Symbol.for('waymark:live-runtimes');

/** Runtime instances alive in this process, shared by every copy of waymark loaded in it. */
function liveRuntimes(): Set<string> {
  const global = globalThis as { [LIVE_RUNTIMES]?: Set<string> };
  return (global[LIVE_RUNTIMES] ??= new Set());
}

let thisHost: string | undefined;

/** The identity of this host and PID namespace. */
export function localHost(): string {
  if (thisHost === undefined) {
    const name = hostname();
    const boot = readOr('/proc/sys/kernel/random/boot_id', '');
    const namespace = linkOr('/proc/self/ns/pid', '');
    const scope = boot || namespace ? createHash('sha256').update(`${boot}|${namespace}`) : null;
    thisHost = scope ? `${name}#${scope.digest('hex').slice(0, 12)}` : name;
  }
  return thisHost;
}

/** The holder string of runtime `runtimeId` in this process. */
export function localProcess(runtimeId: string): string {
  return `${process.pid}:${processStart(process.pid) ?? ''}:${runtimeId}`;
}

/** Records that runtime `runtimeId` is alive in this process (until `markDead`). */
export function markAlive(runtimeId: string): void {
  liveRuntimes().add(runtimeId);
}

/** Records that runtime `runtimeId` is closed or killed: its leases may be taken over. */
export function markDead(runtimeId: string): void {
  liveRuntimes().delete(runtimeId);
}

/**
 * Whether the holder `process` (see {@link LeaseHolder.process}) on this host still exists.
 * In this process: whether that runtime is still open. Elsewhere on the host: whether the
 * pid exists and, where the OS says, started when the holder did.
 */
export function holderIsAlive(holderProcess: string): boolean {
  const [pidText, start, runtimeId] = holderProcess.split(':');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid && start === (processStart(pid) ?? '')) {
    return liveRuntimes().has(runtimeId ?? '');
  }
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = processStat(pid);
  // A process killed but not yet reaped by its parent (a zombie) still answers kill(pid, 0);
  // under a parent that never reaps, it would hold the run until the lease lapsed.
  if (stat?.state === 'Z' || stat?.state === 'X') return false;
  return !start || stat === undefined || stat.start === start;
}

/** The start time of `pid` in clock ticks since boot (Linux), or undefined elsewhere. */
function processStart(pid: number): string | undefined {
  return processStat(pid)?.start;
}

/** The state letter and start time of `pid` from `/proc/<pid>/stat` (Linux), or undefined. */
function processStat(pid: number): { state: string; start: string } | undefined {
  const stat = readOr(`/proc/${pid}/stat`, '');
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ? { state: fields[0], start: fields[19] } : undefined;
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return fallback;
  }
}

function linkOr(path: string, fallback: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return fallback;
  }
}
