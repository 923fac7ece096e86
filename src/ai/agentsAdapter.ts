import type {
  Model,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  StreamEvent,
} from '@openai/agents';
import { loadOptionalPeer } from '../ground/optionalPeer';
import type { RetryOptions } from '../policies/RetryPolicy';
import { inWorkflowCode, runInlineStep } from '../runtime/inlineStep';
import { reportedChat } from './callReports';
import { limiterOption } from './limiterOption';
import { MODEL_STEP_PREFIX } from './stepKinds';
import { agentsNewMessages } from './agentsNewMessages';
import type { StoredMessage } from './newMessages';
import { modelRetryPolicy } from './modelErrors';

/** Options of {@link durableModelProvider}. */
export interface DurableModelProviderOptions {
  /** Retries of one model call; default as `durableModel`'s (5 attempts, `Retry-After` honoured). */
  retry?: RetryOptions;
  /**
   * A named limiter (`runtime.limiter(name, …)`) every attempt passes through, shared with
   * `@Step({ limiter })` steps: its concurrency and rate hold across workers, and a 429 with
   * `Retry-After` pauses every call under it until then.
   */
  limiter?: string;
  /**
   * The provider its model calls are made to, as the `gen_ai.provider.name` of their `chat`
   * spans (`waymark/otel`); default `'openai'`.
   */
  providerName?: string;
}

/** The response as stored: usage as plain data, and the messages the request added. */
type StoredResponse = Omit<ModelResponse, 'usage'> & {
  usage: Record<string, unknown>;
  newMessages?: StoredMessage[];
};

/** What the adapter takes from the SDK at run time. */
type AgentsCore = Pick<typeof import('@openai/agents'), 'Usage'>;

/**
 * Wraps an `@openai/agents` model provider so that, inside a run, each model call of
 * `run(agent, input)` (`getResponse` and `getStreamedResponse`) is a step named
 * `model:<model name>`, answered from the store on resume. Give it to the runner:
 * `new Runner({ modelProvider: durableModelProvider(new OpenAIProvider(…)) })`. Tools are
 * wrapped apart, with {@link durableAgentTools}. Outside a run, calls pass through. Needs
 * `@openai/agents` (an optional peer dependency), or `@openai/agents-core` alone: loaded here,
 * so a missing package is a `ConfigurationError` now, not a failure in the middle of a run.
 */
export function durableModelProvider(
  provider: ModelProvider,
  options: DurableModelProviderOptions = {},
): ModelProvider {
  const retry = modelRetryPolicy(options.retry, 'durableModelProvider(): retry');
  const limiter = limiterOption(options.limiter, 'durableModelProvider(): limiter');
  // `Usage` rebuilds a stored response's usage; `@openai/agents` re-exports it from the core.
  const { Usage } = loadOptionalPeer<AgentsCore>(
    'durableModelProvider()',
    '@openai/agents',
    '@openai/agents-core',
  );
  return {
    async getModel(modelName?: string): Promise<Model> {
      const inner = await provider.getModel(modelName);
      const modelId = modelName ?? 'default';
      const spec = { name: `${MODEL_STEP_PREFIX}${modelId}`, retry, limiter };
      const reported = { provider: options.providerName ?? 'openai', modelId };
      return {
        async getResponse(request: ModelRequest): Promise<ModelResponse> {
          if (!inWorkflowCode()) return inner.getResponse(request);
          const stored = await runInlineStep(spec, async () => {
            const call = () => inner.getResponse(request);
            const response = await reportedChat(reported, call, responseOutcome);
            return toStored(response, agentsNewMessages(request));
          });
          const response: StoredResponse = { ...stored };
          delete response.newMessages; // kept for people (the console), not for the SDK
          return {
            ...response,
            usage: new Usage(stored.usage),
          };
        },
        async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
          if (!inWorkflowCode()) {
            yield* inner.getStreamedResponse(request);
            return;
          }
          const events = await runInlineStep(spec, () =>
            reportedChat(
              reported,
              async () => {
                const all: StreamEvent[] = [];
                for await (const event of inner.getStreamedResponse(request)) all.push(event);
                return all;
              },
              streamedOutcome,
            ),
          );
          yield* events;
        },
      };
    },
  };
}

/** What a response tells of its call, for its `chat` span: the tokens it used. */
function responseOutcome(response: ModelResponse) {
  const { inputTokens, outputTokens } = response.usage;
  return { inputTokens, outputTokens, finishReasons: [] };
}

/** What a streamed response tells of its call: the usage of its `response_done` event. */
function streamedOutcome(events: readonly StreamEvent[]) {
  const done = events.find((event) => event.type === 'response_done');
  if (done?.type !== 'response_done') return { finishReasons: [] };
  const { inputTokens, outputTokens } = done.response.usage;
  return { inputTokens, outputTokens, finishReasons: [] };
}

/** The response with its `Usage` instance as plain data (it has methods), and the new messages. */
function toStored(response: ModelResponse, newMessages: StoredMessage[]): StoredResponse {
  const usage = { ...response.usage } as Record<string, unknown>;
  return { ...response, usage, newMessages };
}
