import { TOOL_STEP_PREFIX } from '../ai/stepKinds';
import { asText, cut, parsed, type ToolCallView } from './conversationView';

/** The view of a tool step: `stepName` `tool:<name>`, its key, its stored output (or its start). */
export function toolCallView(
  runId: string,
  stepName: string,
  idempotencyKey: string | undefined,
  json: string | undefined,
): ToolCallView {
  const prefix = `${runId}:${TOOL_STEP_PREFIX}`;
  const view: ToolCallView = { toolName: stepName.slice(TOOL_STEP_PREFIX.length) };
  if (idempotencyKey?.startsWith(prefix)) view.toolCallId = idempotencyKey.slice(prefix.length);
  if (json !== undefined) view.output = cut(asText(parsed(json) ?? json));
  return view;
}
