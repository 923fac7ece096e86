import type { AiChatCall } from '../model/AiCall';
import { reportAiCall } from '../runtime/inlineStep';
import type { GenerateResult, LanguageModelV3, StreamPart } from './modelTypes';

/** What a finished model call tells of itself: the answering model, tokens, finish reason. */
type ChatOutcome = Pick<AiChatCall, 'responseModel' | 'inputTokens' | 'outputTokens'> & {
  readonly finishReasons: string[];
};

/**
 * Runs `call` (a step body's model request) and reports it as an `ai.call` of operation
 * `chat`, with what `outcome` reads from its result; a failed call is reported with its error
 * and thrown on. Reported from the body, so a replayed step reports nothing.
 */
export async function reportedChat<T>(
  model: Pick<LanguageModelV3, 'provider' | 'modelId'>,
  call: () => PromiseLike<T>,
  outcome: (result: T) => ChatOutcome,
): Promise<T> {
  const base = {
    operation: 'chat',
    provider: model.provider,
    requestModel: model.modelId,
  } as const;
  // Wall-clock time, not the runtime's clock (a test's may be frozen): spans sit beside others.
  const startTime = Date.now();
  try {
    const result = await call();
    reportAiCall({ ...base, ...outcome(result), startTime, endTime: Date.now() });
    return result;
  } catch (error) {
    reportAiCall({ ...base, finishReasons: [], startTime, endTime: Date.now(), error });
    throw error;
  }
}

/** Runs a tool's `execute` in a step body and reports it as an `ai.call` of `execute_tool`. */
export async function reportedTool<T>(
  toolName: string,
  toolCallId: string,
  call: () => Promise<T>,
): Promise<T> {
  const base = { operation: 'execute_tool', toolName, toolCallId } as const;
  const startTime = Date.now();
  try {
    const result = await call();
    reportAiCall({ ...base, startTime, endTime: Date.now() });
    return result;
  } catch (error) {
    reportAiCall({ ...base, startTime, endTime: Date.now(), error });
    throw error;
  }
}

/** What a `doGenerate` result tells of the call. */
export function generateOutcome(result: GenerateResult): ChatOutcome {
  return {
    responseModel: result.response?.modelId,
    inputTokens: result.usage.inputTokens.total,
    outputTokens: result.usage.outputTokens.total,
    finishReasons: [result.finishReason.unified],
  };
}

/** What a recorded stream's parts tell of the call: its metadata part and its finish part. */
export function streamOutcome(parts: readonly StreamPart[]): ChatOutcome {
  let responseModel: string | undefined;
  let outcome: ChatOutcome = { finishReasons: [] };
  for (const part of parts) {
    if (part.type === 'response-metadata') responseModel = part.modelId ?? responseModel;
    if (part.type === 'finish') {
      outcome = {
        inputTokens: part.usage.inputTokens.total,
        outputTokens: part.usage.outputTokens.total,
        finishReasons: [part.finishReason.unified],
      };
    }
  }
  return { ...outcome, responseModel };
}
