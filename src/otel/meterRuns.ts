import type { Attributes, BatchObservableResult, Counter, Meter } from '@opentelemetry/api';
import type { Disposable } from '../ground/Disposable';
import { loadOptionalPeer } from '../ground/optionalPeer';
import type { WaymarkEvents } from '../runtime';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { OpenTelemetryApi } from './OpenTelemetryApi';

/** Options of {@link meterRuns}. */
export interface MeterRunsOptions {
  /** Default `metrics.getMeter('waymark')` from the global meter provider. */
  meter?: Meter;
  /**
   * Report each queue's depth from the database at every collection (default true). The depth
   * is the same from every process: turn it off in all but one to save the query.
   */
  queueGauges?: boolean;
}

type RunCounter = 'started' | 'resumed' | 'completed' | 'failed' | 'needs_attention' | 'cancelled';

const RUN_COUNTERS: Record<RunCounter, string> = {
  started: 'Runs that began executing for the first time',
  resumed: 'Executions of a run that resumed from its history',
  completed: 'Runs that ended with a result',
  failed: 'Runs that ended with an error',
  needs_attention: 'Runs parked for an operator',
  cancelled: 'Runs cancelled',
};

/**
 * Records OpenTelemetry metrics of a runtime — runs started, resumed, completed, failed,
 * parked and cancelled by workflow (`waymark.runs.*`), step duration (`waymark.step.duration`,
 * seconds), attempts and retries by step, how long runs were ready before a worker claimed
 * them (`waymark.queue.wait`, seconds), lease take-overs (`waymark.lease.takeovers`),
 * database retries (`waymark.store.retries`), how late stream readers here see each batch
 * (`waymark.stream.lag`, seconds), and each queue's depth as stored
 * (`waymark.queue.depth`, `.waiting`, `.running`) — through the meter provider the
 * application set up, so its usual exporter (Prometheus, OTLP) carries them. Needs
 * `@opentelemetry/api` (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { meterRuns } from 'waymark/otel';
 * const metering = meterRuns(runtime); // uses the global meter provider
 * metering.dispose();
 * ```
 */
export function meterRuns(runtime: WaymarkRuntime, options: MeterRunsOptions = {}): Disposable {
  const otel = loadOptionalPeer<OpenTelemetryApi>('meterRuns()', '@opentelemetry/api');
  const meter = options.meter ?? otel.metrics.getMeter('waymark');
  const runs = {} as Record<RunCounter, Counter>;
  for (const [name, description] of Object.entries(RUN_COUNTERS)) {
    runs[name as RunCounter] = meter.createCounter(`waymark.runs.${name}`, {
      description,
      unit: '{run}',
    });
  }
  const duration = meter.createHistogram('waymark.step.duration', {
    description: 'How long a step took, from its call to its stored outcome, retries included',
    unit: 's',
  });
  const attempts = meter.createCounter('waymark.step.attempts', {
    description: 'Attempts of step bodies (the first and each retry)',
    unit: '{attempt}',
  });
  const retries = meter.createCounter('waymark.step.retries', {
    description: 'Step attempts that failed with a transient error and will be retried',
    unit: '{attempt}',
  });
  const replayed = meter.createCounter('waymark.step.replayed', {
    description: 'Steps whose stored outcome was returned without running the body',
    unit: '{step}',
  });
  const queueWait = meter.createHistogram('waymark.queue.wait', {
    description:
      'How long a run was ready (queued, or due after a timer, backoff or signal) before a worker claimed it',
    unit: 's',
  });
  const takeovers = meter.createCounter('waymark.lease.takeovers', {
    description:
      'Runs taken over by a worker after their lease lapsed (holder died, stalled or cut off)',
    unit: '{run}',
  });
  const storeRetries = meter.createCounter('waymark.store.retries', {
    description:
      'Database operations tried again after a transient failure (lost connection, lock)',
    unit: '{retry}',
  });
  const streamLag = meter.createHistogram('waymark.stream.lag', {
    description:
      "How late this process's stream readers first saw each stored batch, from its write",
    unit: 's',
  });
  const workflowOf = (workflow: string): Attributes => ({ 'waymark.workflow': workflow });
  // As the queue gauges name it: '' is the default queue.
  const queueOf = (queue: string | null): string => queue ?? '';
  const stepOf = (step: string): Attributes => ({ 'waymark.step': step });

  const subscription = runtime.onAny((event, payload) => {
    switch (event) {
      case 'run.started':
      case 'run.resumed':
      case 'run.completed':
      case 'run.failed':
      case 'run.needs_attention': {
        const counter = runs[event.slice('run.'.length) as RunCounter];
        counter.add(1, workflowOf((payload as { workflow: string }).workflow));
        break;
      }
      case 'run.cancelled':
        runs.cancelled.add(1);
        break;
      case 'step.attempt':
        attempts.add(1, stepOf((payload as { step: string }).step));
        break;
      case 'step.retrying':
        retries.add(1, stepOf((payload as { step: string }).step));
        break;
      case 'step.replayed':
        replayed.add(1, stepOf((payload as { step: string }).step));
        break;
      case 'run.claimed': {
        const claimed = payload as WaymarkEvents['run.claimed'];
        queueWait.record(claimed.waitedMs / 1000, {
          ...workflowOf(claimed.workflow),
          'waymark.queue': queueOf(claimed.queue),
          'waymark.claimed_from': claimed.from,
        });
        break;
      }
      case 'run.taken_over': {
        const taken = payload as WaymarkEvents['run.taken_over'];
        takeovers.add(1, { ...workflowOf(taken.workflow), 'waymark.queue': queueOf(taken.queue) });
        break;
      }
      case 'store.retrying':
        storeRetries.add(1);
        break;
      case 'stream.seen': {
        const seen = payload as WaymarkEvents['stream.seen'];
        streamLag.record(seen.lagMs / 1000, { 'waymark.stream': seen.stream });
        break;
      }
      case 'step.completed':
      case 'step.failed': {
        const { step, durationMs } = payload as { step: string; durationMs: number };
        const outcome = event === 'step.completed' ? 'completed' : 'failed';
        duration.record(durationMs / 1000, { ...stepOf(step), 'waymark.outcome': outcome });
        break;
      }
      default:
        break;
    }
  });
  const gauges = options.queueGauges === false ? undefined : queueGauges(runtime, meter);
  return {
    dispose: () => {
      subscription.dispose();
      gauges?.dispose();
    },
  };
}

/** Each queue's depth, waiting and running runs, read from the database at each collection. */
function queueGauges(runtime: WaymarkRuntime, meter: Meter): Disposable {
  const unit = '{run}';
  const depth = meter.createObservableGauge('waymark.queue.depth', {
    description: 'Runs queued, not yet claimed',
    unit,
  });
  const waiting = meter.createObservableGauge('waymark.queue.waiting', {
    description: 'Runs of the queue waiting for a timer, a backoff or a signal',
    unit,
  });
  const running = meter.createObservableGauge('waymark.queue.running', {
    description: 'Runs of the queue executing now',
    unit,
  });
  const observe = async (result: BatchObservableResult): Promise<void> => {
    for (const queue of await runtime.queueStats()) {
      const attributes = { 'waymark.queue': queue.name };
      result.observe(depth, queue.pending, attributes);
      result.observe(waiting, queue.waiting, attributes);
      result.observe(running, queue.running, attributes);
    }
  };
  meter.addBatchObservableCallback(observe, [depth, waiting, running]);
  return { dispose: () => meter.removeBatchObservableCallback(observe, [depth, waiting, running]) };
}
