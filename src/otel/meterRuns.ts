import type { Attributes, BatchObservableResult, Counter, Meter } from '@opentelemetry/api';
import type { Disposable } from '../ground/Disposable';
import { loadOptionalPeer } from '../ground/optionalPeer';
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
 * seconds), attempts and retries by step, and each queue's depth as stored
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
  const workflowOf = (workflow: string): Attributes => ({ 'waymark.workflow': workflow });
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
