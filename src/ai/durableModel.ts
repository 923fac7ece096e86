import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { parseDuration, type Duration } from '../ground/Duration';
import { loadOptionalPeer } from '../ground/optionalPeer';
import type { RetryOptions } from '../policies/RetryPolicy';
import { answerFromReplaySource, inWorkflowCode, runInlineStep } from '../runtime/inlineStep';
import { WorkflowContext } from '../runtime/WorkflowContext';
import { generateOutcome, reportedChat, streamOutcome } from './callReports';
import { limiterOption } from './limiterOption';
import { modelRetryPolicy } from './modelErrors';
import type { LanguageModelMiddleware } from 'ai';
import type { LanguageModelV3 } from './modelTypes';
import { newMessages } from './newMessages';
import { modelInputHash, recordedFrom } from './modelInputHash';
import {
  recordGenerate,
  recordStream,
  replayGenerate,
  replayStream,
  type RecordedGenerate,
  type RecordedStream,
} from './recordedModelCall';
import { MODEL_STEP_PREFIX } from './stepKinds';

/** Options of {@link durableModel} and {@link durableMiddleware}. */
export interface DurableModelOptions {
  /** The step name in the history; default `model:<modelId>`. */
  name?: string;
  /**
   * Retries of one model call, stored like a `@Retry` step's; default 5 attempts, backoff
   * from 1 s doubling to 1 min, `Retry-After` honoured, classified by `isRetryableModelError`.
   */
  retry?: RetryOptions;
  /**
   * The run's durable stream the text of streamed calls (`streamText`) is written to as it
   * arrives, one chunk per text delta, for a UI to read with `runtime.readStream(runId, 'llm')`;
   * default `'llm'`, `false` for none. A call cut by a failure or a crash and made again is
   * preceded by a restart marker carrying the attempt.
   */
  stream?: string | false;
  /** Longest one attempt may take: the request is aborted and the attempt retried. */
  timeout?: Duration;
  /**
   * A named limiter (`runtime.limiter(name, …)`) every attempt passes through, shared with
   * `@Step({ limiter })` steps: its concurrency and rate hold across workers, and a 429 with
   * `Retry-After` pauses every call under it until then.
   */
  limiter?: string;
}

const context = new WorkflowContext();

/**
 * The AI SDK middleware behind {@link durableModel}, for composing with other middleware
 * (`wrapLanguageModel({ model, middleware: [durableMiddleware(), …] })`; put it first so it
 * records what the others produce).
 */
export function durableMiddleware(options: DurableModelOptions = {}): LanguageModelMiddleware {
  const retry = modelRetryPolicy(options.retry, 'durableModel(): retry');
  const streamName = options.stream ?? 'llm';
  const timeoutMs =
    options.timeout === undefined
      ? undefined
      : parseDuration(options.timeout, 'durableModel(): timeout');
  const limiter = limiterOption(options.limiter, 'durableModel(): limiter');
  const spec = (model: LanguageModelV3) => ({
    name: options.name ?? `${MODEL_STEP_PREFIX}${model.modelId}`,
    retry,
    timeoutMs,
    limiter,
  });
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      if (!inWorkflowCode()) return doGenerate();
      const recorded = await runInlineStep(spec(model), async () => {
        // Hashed in the body: a call answered from the run's own history needs no hash.
        const inputHash = modelInputHash(params);
        const replayed = await answerFromReplaySource((r) => recordedFrom(r, inputHash));
        if (replayed !== undefined) return replayed as RecordedGenerate;
        const generate = () => model.doGenerate({ ...params, abortSignal: stepSignal(params) });
        const result = await reportedChat(model, generate, generateOutcome);
        return recordGenerate(result, newMessages(params.prompt), inputHash);
      });
      return replayGenerate(recorded);
    },
    wrapStream: async ({ doStream, params, model }) => {
      if (!inWorkflowCode()) return doStream();
      const recorded = await runInlineStep(spec(model), async () => {
        const inputHash = modelInputHash(params);
        const replayed = await answerFromReplaySource((r) => recordedFrom(r, inputHash));
        if (replayed !== undefined) return replayed as RecordedStream;
        const out = streamName === false ? undefined : context.stream<string>(streamName);
        const stream = async () => {
          const result = await model.doStream({ ...params, abortSignal: stepSignal(params) });
          return recordStream(result, newMessages(params.prompt), inputHash, (part) => {
            if (part.type === 'text-delta' && part.delta !== '') out?.write(part.delta);
          });
        };
        return reportedChat(model, stream, (recorded) => streamOutcome(recorded.parts));
      });
      return replayStream(recorded);
    },
  };
}

/**
 * Wraps an AI SDK language model so that, inside a run, each model call (`generateText`,
 * `streamText`, an agent's loop) is a checkpointed step named `model:<modelId>`: executed
 * once, retried with stored attempts, and on resume answered from the store with no
 * request. Outside a run, or inside a step's body, calls pass through untouched.
 *
 * Pass `maxRetries: 0` to `generateText` / `streamText`: waymark does the retrying (its
 * attempts survive a crash); see the README's "Agents" section for the precedence. Needs `ai`
 * (an optional peer dependency), loaded here: without it, this throws a `ConfigurationError`
 * naming the package.
 *
 * @example
 * ```ts
 * const model = durableModel(openai('gpt-4o-mini'));
 * const { text } = await generateText({ model, tools, stopWhen: stepCountIs(8), maxRetries: 0, prompt });
 * ```
 */
export function durableModel(
  model: LanguageModelV3,
  options?: DurableModelOptions,
): LanguageModelV3 {
  const candidate = model as unknown;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    (candidate as { specificationVersion?: unknown }).specificationVersion !== 'v3'
  ) {
    throw new InvalidArgumentError(
      'durableModel(): model',
      `must be an AI SDK 6 language model object (specificationVersion "v3", e.g. openai('gpt-4o-mini')), got ${describe(candidate)}`,
    );
  }
  // Loaded here, not at the top: `waymark/ai` also serves @openai/agents users without `ai`.
  const { wrapLanguageModel } = loadOptionalPeer<typeof import('ai')>('durableModel()', 'ai');
  return wrapLanguageModel({ model, middleware: durableMiddleware(options) });
}

/** The caller's abort signal joined with the step's (timeout, cancellation). */
function stepSignal(params: { abortSignal?: AbortSignal }): AbortSignal {
  const own = context.signal;
  return params.abortSignal ? AbortSignal.any([params.abortSignal, own]) : own;
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return `the string "${value}" (a gateway model id cannot be wrapped)`;
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const version = (value as { specificationVersion?: unknown }).specificationVersion;
  return version === undefined
    ? 'an object without specificationVersion'
    : `specificationVersion ${JSON.stringify(version)}`;
}
