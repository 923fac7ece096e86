/**
 * What a model or tool call made inside a step body was, as `waymark/ai` reports it for
 * tracing (the `ai.call` runtime event): the facts OpenTelemetry's GenAI conventions name.
 * Reported only when the call really ran, never when its step is replayed from the history.
 */
export type AiCall = AiChatCall | AiToolCall;

/** When a call ran, and how it ended. */
export interface AiCallTiming {
  /** When the call began, in epoch milliseconds. */
  readonly startTime: number;
  /** When it returned or threw, in epoch milliseconds. */
  readonly endTime: number;
  /** What the call threw; absent when it returned. */
  readonly error?: unknown;
}

/** One request to a language model (`doGenerate` or `doStream`). */
export interface AiChatCall extends AiCallTiming {
  /** `gen_ai.operation.name`. */
  readonly operation: 'chat';
  /** The model's provider id, as the SDK names it (`openai.chat`). */
  readonly provider: string;
  /** The model asked for. */
  readonly requestModel: string;
  /** The model that answered, when the provider said. */
  readonly responseModel?: string;
  /** Prompt tokens, when the provider reported usage. */
  readonly inputTokens?: number;
  /** Completion tokens, when the provider reported usage. */
  readonly outputTokens?: number;
  /** Why the model stopped (`stop`, `tool-calls`, …); empty when the call failed. */
  readonly finishReasons: readonly string[];
}

/** One execution of a tool the model called. */
export interface AiToolCall extends AiCallTiming {
  /** `gen_ai.operation.name`. */
  readonly operation: 'execute_tool';
  /** The tool's name in the tool set. */
  readonly toolName: string;
  /** The id the model gave the call. */
  readonly toolCallId: string;
}
