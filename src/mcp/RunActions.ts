import { ConsoleApi } from '../console/ConsoleApi';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { TOOL_APPROVAL_PREFIX } from '../model/toolApprovalSignals';
import type { ReplayReport } from '../runtime/ReplayReport';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { McpCaller } from './McpCaller';

/** An approval as the `approve` tool takes it. */
export interface ApprovalInput {
  runId: string;
  /** The tool call (`approve:<toolCallId>`); default: the approval or signal the run waits for. */
  toolCallId?: string;
  approved: boolean;
  reason?: string;
  /** As listed (`approval.waitSeq`, `approval.digest`): refused if the run now asks something else. */
  waitSeq?: number;
  digest?: string;
}

/**
 * What an MCP caller does to runs, through the runtime's operator API and the console's
 * signal path (so an approval records `decidedBy`: the caller's name). Like the console it
 * executes no run: `retry` and `fork` leave theirs `pending` for a worker.
 */
export class RunActions {
  private readonly api: ConsoleApi;

  constructor(
    private readonly runtime: WaymarkRuntime,
    private readonly caller: McpCaller,
  ) {
    this.api = new ConsoleApi(runtime);
  }

  /**
   * Sends the signal `name` — by default the one the run waits for — with `payload`.
   * @throws `InvalidArgumentError` when no name is given and the run waits for no signal.
   */
  async signal(runId: string, name: string | undefined, payload: unknown): Promise<string> {
    const signal = name ?? (await this.awaitedSignal(runId, 'the signal name'));
    const body = payload === undefined ? { name: signal } : { name: signal, payload };
    await this.api.signal(runId, body, this.caller.name);
    return signal;
  }

  /**
   * Approves or denies what the run waits for: the tool call `toolCallId`, else the approval
   * (or any signal) it waits for, with `{ approved, reason?, waitSeq?, digest? }`. A second
   * decision for one tool call is refused (`AlreadyDecidedError`).
   */
  async approve(input: ApprovalInput): Promise<string> {
    const { runId, toolCallId, approved, reason, waitSeq, digest } = input;
    const name =
      toolCallId === undefined
        ? await this.awaitedSignal(runId, 'toolCallId')
        : `${TOOL_APPROVAL_PREFIX}${toolCallId}`;
    const payload = {
      approved,
      ...(reason === undefined ? {} : { reason }),
      ...(waitSeq === undefined ? {} : { waitSeq }),
      ...(digest === undefined ? {} : { digest }),
    };
    return this.signal(runId, name, payload);
  }

  /** Cancels the run (and the runs under it), recording who cancelled it. */
  async cancel(runId: string, reason: string | undefined): Promise<void> {
    const by = `by ${this.caller.name} via MCP`;
    await this.runtime.cancel(runId, reason === undefined ? by : `${reason} (${by})`);
  }

  /** Puts a failed or needs-attention run back in the queue for a worker. */
  async retry(runId: string): Promise<void> {
    await this.runtime.retry(runId, { queue: true });
  }

  /** A new run with the history before `fromSeq` copied, pending for a worker; its id. */
  async fork(runId: string, fromSeq: number, newRunId: string | undefined): Promise<string> {
    const fork = await this.runtime.fork(runId, { fromSeq, newRunId, queue: true });
    return fork.runId;
  }

  /**
   * Replays the run from `from` on the workflow code this process registered (`waymark mcp
   * --module`), with `override` standing in for steps' results; what changed.
   */
  async replay(
    runId: string,
    from: number,
    override: Record<number, unknown> | undefined,
  ): Promise<ReplayReport> {
    const { report } = await this.runtime.replay(runId, { from, override });
    return report;
  }

  private async awaitedSignal(runId: string, option: string): Promise<string> {
    const run = await this.runtime.handle(runId).describe({ valueChars: 1 });
    const waited = run.status === 'waiting' ? run.waitingFor : null;
    if (waited?.startsWith('signal:') === true) return waited.slice('signal:'.length);
    const now = run.status === 'waiting' ? `it waits for ${String(waited)}` : `it is ${run.status}`;
    throw new InvalidArgumentError(
      option,
      `must be given: run "${runId}" waits for no signal (${now})`,
    );
  }
}
