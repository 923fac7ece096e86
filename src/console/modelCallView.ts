import { agentsResponse, agentsStream } from './agentsCallView';
import {
  asText,
  cut,
  isObject,
  MAX_PART_TEXT,
  parsed,
  withReply,
  type ConversationPart,
  type Json,
  type ModelCallView,
} from './conversationView';

/**
 * The readable view of a model call's stored output (`json`, the codec's whole text): AI SDK
 * `doGenerate` results and recorded streams, `@openai/agents` responses and streams. Undefined
 * when the text is too long to parse here or of a shape this does not know.
 */
export function modelCallView(json: string): ModelCallView | undefined {
  const value = parsed(json);
  if (Array.isArray(value)) return agentsStream(value);
  if (!isObject(value)) return undefined;
  const input = Array.isArray(value.newMessages)
    ? value.newMessages.flatMap((message: Json) => promptMessage(message))
    : [];
  if (Array.isArray(value.content)) {
    return withReply(input, value.content.flatMap(sdkPart), value.usage, value.finishReason);
  }
  if (Array.isArray(value.parts)) return sdkStream(value.parts, input);
  if (Array.isArray(value.output)) return agentsResponse(value, input);
  return undefined;
}

/** A prompt message as `waymark/ai` stores it (`newMessages`): role and parts. */
function promptMessage(message: Json): ModelCallView['messages'] {
  if (!isObject(message) || typeof message.role !== 'string') return [];
  const content = Array.isArray(message.content)
    ? message.content
    : [{ type: 'text', text: message.content }];
  return [{ role: message.role, parts: content.flatMap(sdkPart) }];
}

/** An AI SDK content part, of a result or of a prompt message. */
function sdkPart(part: Json): ConversationPart[] {
  if (!isObject(part)) return [];
  const id = typeof part.toolCallId === 'string' ? { toolCallId: part.toolCallId } : {};
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return [{ type: part.type, text: cut(asText(part.text)) }];
    case 'tool-call':
      return [
        {
          type: 'tool-call',
          toolName: asText(part.toolName),
          ...id,
          input: cut(asText(part.input)),
        },
      ];
    case 'tool-result':
      return [
        {
          type: 'tool-result',
          toolName: asText(part.toolName),
          ...id,
          output: cut(toolOutput(part.output)),
        },
      ];
    case 'file':
      return [{ type: 'text', text: `[file ${asText(part.mediaType)}]` }];
    default:
      return [];
  }
}

/** A tool result's output (AI SDK 6: `{ type, value }`) as text. */
function toolOutput(output: Json): string {
  if (!isObject(output) || typeof output.type !== 'string') return asText(output);
  switch (output.type) {
    case 'text':
    case 'json':
      return asText(output.value);
    case 'error-text':
    case 'error-json':
      return `error: ${asText(output.value)}`;
    case 'execution-denied':
      return `denied${output.reason ? `: ${asText(output.reason)}` : ''}`;
    case 'content':
      return Array.isArray(output.value)
        ? output.value
            .map((item) => (isObject(item) && item.type === 'text' ? asText(item.text) : '[file]'))
            .join('\n')
        : asText(output);
    default:
      return asText(output);
  }
}

/** A recorded AI SDK stream: its deltas joined per text or reasoning part, its tool calls. */
function sdkStream(parts: Json[], input: ModelCallView['messages']): ModelCallView {
  const reply: ConversationPart[] = [];
  const open = new Map<string, { type: 'text' | 'reasoning'; text: string }>();
  let usage: Json;
  let finish: Json;
  for (const part of parts) {
    if (!isObject(part)) continue;
    const kind =
      part.type === 'text-delta' ? 'text' : part.type === 'reasoning-delta' ? 'reasoning' : null;
    if (kind) {
      const key = `${kind}:${asText(part.id)}`;
      let text = open.get(key);
      if (!text) {
        text = { type: kind, text: '' };
        open.set(key, text);
        reply.push(text);
      }
      if (text.text.length <= MAX_PART_TEXT) text.text += asText(part.delta);
    } else if (part.type === 'tool-call') {
      reply.push(...sdkPart(part));
    } else if (part.type === 'finish') {
      usage = part.usage;
      finish = part.finishReason;
    }
  }
  for (const text of open.values()) text.text = cut(text.text);
  return withReply(input, reply, usage, finish);
}
