/*
 * What the console reads from a step `waymark/ai` recorded: the views the API sends
 * (`ModelCallView`, `ToolCallView`), their bounds, and the helpers of reading stored JSON.
 */

/** Longest text of one part (a message's text, a tool call's arguments, a result) sent. */
export const MAX_PART_TEXT = 2000;
/** Most parts one view sends (its messages' together); the raw value has the rest. */
export const MAX_VIEW_PARTS = 50;
/** Most characters of text, arguments and results one view sends (a single part may pass it). */
export const MAX_VIEW_TEXT = 6000;
/** A stored value longer than this is not parsed for its view (the raw prefix remains). */
export const MAX_PARSED_TEXT = 1_000_000;

/** A part of a message: text, or a tool call (arguments as JSON text) or its result. */
export type ConversationPart =
  | { type: 'text' | 'reasoning'; text: string }
  | { type: 'tool-call'; toolName: string; toolCallId?: string; input: string }
  | { type: 'tool-result'; toolName: string; toolCallId?: string; output: string };

/**
 * A model call as the console shows it: the messages its prompt added (as `waymark/ai`
 * recorded them; none for calls recorded before it did), the model's reply as an
 * `assistant` message, its token usage and finish reason when stored.
 */
export interface ModelCallView {
  /** In order: the prompt's new messages (`system`, `user`, `tool`), then the reply (`assistant`). */
  messages: Array<{ role: string; parts: ConversationPart[] }>;
  /** Tokens the call read and wrote, as the provider reported them. */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Why the model stopped: `stop`, `tool-calls`, `length`, … (AI SDK's unified reason). */
  finishReason?: string;
}

/** A tool call as the console shows it: the tool and its result (the arguments are the model call's). */
export interface ToolCallView {
  /** The tool's name, from the step's name `tool:<name>`. */
  toolName: string;
  /** From the step's idempotency key `<runId>:tool:<toolCallId>` (absent with a custom `key`). */
  toolCallId?: string;
  /** The result as JSON text; absent until the step completed. */
  output?: string;
}

/** A value parsed from stored JSON, not yet checked. */
export type Json = unknown;

/** The stored JSON parsed, the codec's tags made plain; undefined when too long or not JSON. */
export function parsed(json: string): Json {
  if (json.length > MAX_PARSED_TEXT) return undefined;
  try {
    return plain(JSON.parse(json));
  } catch {
    return undefined;
  }
}

/** The codec's tagged values as plain JSON: `undefined` dropped, a date as its ISO text. */
function plain(value: Json): Json {
  if (Array.isArray(value)) return value.map(plain);
  if (!isObject(value)) return value;
  if (typeof value.$wm === 'string') return 'v' in value ? plain(value.v) : undefined;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `text` cut at {@link MAX_PART_TEXT} characters, saying how many more there were. */
export function cut(text: string): string {
  if (text.length <= MAX_PART_TEXT) return text;
  return `${text.slice(0, MAX_PART_TEXT)}… (${text.length - MAX_PART_TEXT} more characters)`;
}

/** A string as it is, anything else as its JSON; nothing as ''. */
export function asText(value: Json): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A token count: a number (the Agents SDK) or `{ total }` (AI SDK 6). */
export function tokens(value: Json): number | undefined {
  if (typeof value === 'number') return value;
  return isObject(value) && typeof value.total === 'number' ? value.total : undefined;
}

/** A model call's view: its input messages, then its reply as `assistant`, bounded. */
export function withReply(
  input: ModelCallView['messages'],
  reply: ConversationPart[],
  usage: Json,
  finish: Json,
): ModelCallView {
  const view: ModelCallView = {
    messages: bounded(reply.length > 0 ? [...input, { role: 'assistant', parts: reply }] : input),
  };
  if (isObject(usage)) {
    const inputTokens = tokens(usage.inputTokens);
    const outputTokens = tokens(usage.outputTokens);
    if (inputTokens !== undefined || outputTokens !== undefined) {
      view.usage = { inputTokens, outputTokens };
    }
  }
  const reason =
    typeof finish === 'string' ? finish : isObject(finish) ? finish.unified : undefined;
  if (typeof reason === 'string') view.finishReason = reason;
  return view;
}

/**
 * The messages with at most {@link MAX_VIEW_PARTS} parts and {@link MAX_VIEW_TEXT} characters
 * of text, arguments and results: the parts that fit, in order, then one saying what was left
 * out, so a page of model calls stays small.
 */
function bounded(messages: ModelCallView['messages']): ModelCallView['messages'] {
  const total = messages.reduce((sum, message) => sum + message.parts.length, 0);
  const kept: ModelCallView['messages'] = [];
  let parts = 0;
  let chars = 0;
  for (const message of messages) {
    const fitting: ConversationPart[] = [];
    for (const part of message.parts) {
      const size = partText(part).length;
      const full = parts >= MAX_VIEW_PARTS - 1 || (parts > 0 && chars + size > MAX_VIEW_TEXT);
      if (full && total > parts + 1) break;
      fitting.push(part);
      parts += 1;
      chars += size;
    }
    kept.push({ role: message.role, parts: fitting });
    if (fitting.length < message.parts.length) break;
  }
  if (parts === total) return messages;
  const note = `(${total - parts} more parts: waymark show <run> --json prints them)`;
  kept[kept.length - 1].parts.push({ type: 'text', text: note });
  return kept;
}

function partText(part: ConversationPart): string {
  if (part.type === 'tool-call') return part.toolName + part.input;
  if (part.type === 'tool-result') return part.toolName + part.output;
  return part.text;
}
