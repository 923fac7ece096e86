import type { LanguageModelV3 } from './modelTypes';

type Prompt = Parameters<LanguageModelV3['doGenerate']>[0]['prompt'];

/** One message of a model call's prompt as stored for people to read: role and parts. */
export interface StoredMessage {
  readonly role: string;
  readonly content: StoredPart[];
}

/** A prompt part with what a reader needs: text, a tool call or result, a file's type. */
export type StoredPart =
  | { readonly type: 'text' | 'reasoning'; readonly text: string }
  | { readonly type: 'file'; readonly mediaType: string; readonly filename?: string }
  | {
      readonly type: 'tool-call';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  | {
      readonly type: 'tool-result';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly output: unknown;
    }
  | { readonly type: string };

/**
 * The messages a model call's prompt adds to the conversation: those after the model's last
 * message (the system and user messages of the first call, the tool results of the next
 * ones), so a history stores each message once rather than the whole prompt every turn.
 * Only what reads as a conversation is kept: a file's bytes and provider options are not.
 */
export function newMessages(prompt: Prompt): StoredMessage[] {
  let start = 0;
  prompt.forEach((message, index) => {
    if (message.role === 'assistant') start = index + 1;
  });
  return prompt.slice(start).map((message) => ({
    role: message.role,
    content:
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content.map(storedPart),
  }));
}

function storedPart(part: Prompt[number]['content'][number] & object): StoredPart {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { type: part.type, text: part.text };
    case 'file':
      return part.filename === undefined
        ? { type: 'file', mediaType: part.mediaType }
        : { type: 'file', mediaType: part.mediaType, filename: part.filename };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: readableOutput(part.output),
      };
    default:
      return { type: part.type };
  }
}

/** A tool result's output; of a `content` result, its text items (not files' bytes). */
function readableOutput(output: { type: string; value?: unknown }): unknown {
  if (output.type !== 'content' || !Array.isArray(output.value)) return output;
  const items = output.value as Array<{ type: string; text?: string }>;
  return {
    type: 'content',
    value: items.map((item) =>
      item.type === 'text' ? { type: 'text', text: item.text } : { type: item.type },
    ),
  };
}
