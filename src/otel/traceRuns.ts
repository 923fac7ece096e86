import { createHash } from 'node:crypto';
import type { Attributes, Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { Disposable } from '../ground/Disposable';
import { loadOptionalPeer } from '../ground/optionalPeer';
import type { WaymarkEvents } from '../runtime';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { aiStepKind } from '../ai/stepKinds';
import { markAgentRun, recordGenAiSpan } from './genAiSpans';
import { attemptKey, openSpans } from './openSpans';
import type { OpenTelemetryApi } from './OpenTelemetryApi';
import { endSpan } from './spanEnd';
import { stepAttributes } from './stepAttributes';

/** Options of {@link traceRuns}. */
export interface TraceRunsOptions {
  /** Default `trace.getTracer('waymark')` from the global provider. */
  tracer?: Tracer;
}

/**
 * Emits OpenTelemetry spans for a runtime's runs: one span per execution of a run in this
 * process (`waymark.run <workflow>`) and, inside it, one per step attempt
 * (`waymark.step <step>`), with run id, workflow, seq, attempt and outcome as attributes. Every execution of
 * a run — the first, and each resume in any process, days later — belongs to one trace whose
 * id is derived from the run id, and a resumed execution links to the run's root, so a
 * tracing UI shows the whole life of a run together. Model and tool calls of `waymark/ai` get
 * the spans of OpenTelemetry's GenAI conventions (`chat <model>`, `execute_tool <tool>`, with
 * `gen_ai.*` attributes) under their step's span, once, when the call is made: a call
 * replayed on resume makes no span, only a `waymark.replayed` event on the run's span. The
 * span of an execution with such calls is renamed `invoke_agent <workflow>`. Needs
 * `@opentelemetry/api` (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { traceRuns } from 'waymark/otel';
 * const tracing = traceRuns(runtime); // uses the global tracer provider
 * ```
 */
export function traceRuns(runtime: WaymarkRuntime, options: TraceRunsOptions = {}): Disposable {
  const otel = loadOptionalPeer<OpenTelemetryApi>('traceRuns()', '@opentelemetry/api');
  const tracer = options.tracer ?? otel.trace.getTracer('waymark');
  const runs = new Map<string, Span>();
  const workflows = new Map<string, string>();
  // An execution that makes or replays a model or tool call is an agent's invocation.
  const markAgent = (runId: string): void => {
    const span = runs.get(runId);
    const workflow = workflows.get(runId);
    if (span && workflow !== undefined) markAgentRun(span, workflow);
  };
  const attempts = new Map<string, Span>();
  const finishRun = (runId: string, outcome: string, error?: unknown): void => {
    const span = runs.get(runId);
    if (span) endSpan(otel, span, outcome, error);
    runs.delete(runId);
    workflows.delete(runId);
  };
  const finishAttempt = (runId: string, seq: number, outcome: string, error?: unknown): void => {
    const key = attemptKey(runId, seq);
    const span = attempts.get(key);
    if (!span) return;
    endSpan(otel, span, outcome, error);
    attempts.delete(key);
    openSpans.close(key, span);
  };

  return runtime.onAny((event, payload) => {
    switch (event) {
      case 'run.started':
      case 'run.resumed': {
        const { runId, workflow } = payload as { runId: string; workflow: string };
        const root = rootOf(runId);
        const links: Link[] =
          event === 'run.resumed'
            ? [{ context: root, attributes: { 'waymark.link': 'run root' } }]
            : [];
        const attributes: Attributes = {
          'waymark.run_id': runId,
          'waymark.workflow': workflow,
          'waymark.resumed': event === 'run.resumed',
        };
        const parent = otel.trace.setSpanContext(otel.context.active(), root);
        runs.set(runId, tracer.startSpan(`waymark.run ${workflow}`, { attributes, links }, parent));
        workflows.set(runId, workflow);
        break;
      }
      case 'run.completed':
        finishRun((payload as { runId: string }).runId, 'completed');
        break;
      case 'run.failed':
      case 'run.needs_attention': {
        const { runId, error } = payload as { runId: string; error: unknown };
        finishRun(runId, event === 'run.failed' ? 'failed' : 'needs_attention', error);
        break;
      }
      case 'run.waiting':
        finishRun((payload as { runId: string }).runId, 'waiting');
        break;
      case 'run.cancelled':
        finishRun((payload as { runId: string }).runId, 'cancelled');
        break;
      case 'step.attempt': {
        const { runId, seq, step, attempt } = payload as {
          runId: string;
          seq: number;
          step: string;
          attempt: number;
        };
        const runSpan = runs.get(runId);
        const parent = runSpan
          ? otel.trace.setSpan(otel.context.active(), runSpan)
          : otel.context.active();
        const attributes = stepAttributes({ runId, seq, step, attempt });
        const span = tracer.startSpan(`waymark.step ${step}`, { attributes }, parent);
        attempts.set(attemptKey(runId, seq), span);
        openSpans.open(attemptKey(runId, seq), span);
        break;
      }
      case 'step.completed':
        finishAttempt(
          (payload as { runId: string; seq: number }).runId,
          (payload as { seq: number }).seq,
          'completed',
        );
        break;
      case 'step.retrying':
      case 'step.failed': {
        const { runId, seq, error } = payload as { runId: string; seq: number; error: unknown };
        finishAttempt(runId, seq, event === 'step.retrying' ? 'retrying' : 'failed', error);
        break;
      }
      case 'ai.call': {
        const report = payload as WaymarkEvents['ai.call'];
        const attemptSpan = openSpans.get(attemptKey(report.runId, report.seq));
        const active = otel.context.active();
        const parent = attemptSpan ? otel.trace.setSpan(active, attemptSpan) : active;
        recordGenAiSpan(otel, tracer, report, parent);
        markAgent(report.runId);
        break;
      }
      case 'step.replayed': {
        // A recorded model or tool call makes no second span: the run's span marks it instead.
        const { runId, seq, step } = payload as WaymarkEvents['step.replayed'];
        const kind = aiStepKind(step);
        if (kind === undefined) break;
        markAgent(runId);
        runs.get(runId)?.addEvent('waymark.replayed', {
          'gen_ai.operation.name': kind === 'model-call' ? 'chat' : 'execute_tool',
          'waymark.step': step,
          'waymark.seq': seq,
          'waymark.replayed': true,
        });
        break;
      }
      default:
        break;
    }
  });
}

/** The run's own root context: one trace per run, whichever process executes it. */
function rootOf(runId: string): SpanContext {
  const digest = createHash('sha256').update(`waymark:${runId}`).digest('hex');
  return {
    traceId: digest.slice(0, 32),
    spanId: digest.slice(32, 48),
    traceFlags: 1,
    isRemote: true,
  };
}
