/**
 * How `waymark/ai` names the steps it records, so a reader of the history (the console)
 * can tell a model call or a tool call from the name alone: `model:<model id>` and
 * `tool:<tool name>`.
 */
export const MODEL_STEP_PREFIX = 'model:';
export const TOOL_STEP_PREFIX = 'tool:';

/** What a step recorded by `waymark/ai` is; undefined for any other step. */
export type AiStepKind = 'model-call' | 'tool-call';

/** The kind of the step named `name`, from the prefix `waymark/ai` gives it. */
export function aiStepKind(name: string): AiStepKind | undefined {
  if (name.startsWith(MODEL_STEP_PREFIX)) return 'model-call';
  if (name.startsWith(TOOL_STEP_PREFIX)) return 'tool-call';
  return undefined;
}
