import type { ModelRequest } from '@openai/agents';
import type { StoredMessage, StoredPart } from './newMessages';

type Item = Record<string, unknown>;

/**
 * The messages an `@openai/agents` model request adds to the conversation, in the form
 * `newMessages` stores for the AI SDK: the input items after the model's last one (its
 * message, function call or reasoning), with the system instructions on the first call.
 * Text and function call results only; images and files are named by their type.
 */
export function agentsNewMessages(request: ModelRequest): StoredMessage[] {
  const items: Item[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  let start = 0;
  items.forEach((item, index) => {
    if (item.role === 'assistant' || item.type === 'function_call' || item.type === 'reasoning') {
      start = index + 1;
    }
  });
  const messages = items.slice(start).flatMap(message);
  if (start === 0 && request.systemInstructions) {
    messages.unshift({
      role: 'system',
      content: [{ type: 'text', text: request.systemInstructions }],
    });
  }
  return messages;
}

function message(item: Item): StoredMessage[] {
  if (item.type === 'function_call_result') {
    const part: StoredPart = {
      type: 'tool-result',
      toolCallId: String(item.callId),
      toolName: String(item.name),
      output: resultOutput(item.output),
    };
    return [{ role: 'tool', content: [part] }];
  }
  if (typeof item.role !== 'string') return [];
  const content = item.content;
  if (typeof content === 'string')
    return [{ role: item.role, content: [{ type: 'text', text: content }] }];
  if (!Array.isArray(content)) return [];
  return [{ role: item.role, content: (content as Item[]).map(contentPart) }];
}

function contentPart(part: Item): StoredPart {
  return typeof part.text === 'string'
    ? { type: 'text', text: part.text }
    : { type: 'file', mediaType: String(part.type) };
}

/** A function call's result as the AI SDK's tool output, `{ type: 'text', value }`. */
function resultOutput(output: unknown): unknown {
  if (typeof output === 'string') return { type: 'text', value: output };
  const item = output as Item | null;
  if (item && typeof item.text === 'string') return { type: 'text', value: item.text };
  return { type: 'json', value: output ?? null };
}
