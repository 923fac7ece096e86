import { TOOL_STEP_PREFIX } from '../ai/stepKinds';

/** Longest text of one part (a message's text, a tool call's arguments, a result) sent. */
export const MAX_PART_TEXT = 2000;
/** Most parts one view sends (its messages' together); the raw value has the rest. */
export const MAX_VIEW_PARTS = 50;
/** Most characters of text, arguments and results one view sends (a single part may pass it). */
export const MAX_VIEW_TEXT = 6000;
/** A stored value longer than this is not parsed for its view (the raw prefix remains). */
const MAX_PARSED_TEXT = 1_000_000;

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

type Json = unknown;

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

/** The view of a tool step: `stepName` `tool:<name>`, its key, its whole stored output. */
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

function parsed(json: string): Json {
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

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function cut(text: string): string {
  if (text.length <= MAX_PART_TEXT) return text;
  return `${text.slice(0, MAX_PART_TEXT)}… (${text.length - MAX_PART_TEXT} more characters)`;
}

function asText(value: Json): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A token count: a number (the Agents SDK) or `{ total }` (AI SDK 6). */
function tokens(value: Json): number | undefined {
  if (typeof value === 'number') return value;
  return isObject(value) && typeof value.total === 'number' ? value.total : undefined;
}

function withReply(
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

/** An `@openai/agents` ModelResponse: output items (messages, function calls) and usage. */
function agentsResponse(
  response: Record<string, Json>,
  input: ModelCallView['messages'] = [],
): ModelCallView {
  const reply: ConversationPart[] = [];
  for (const item of response.output as Json[]) {
    if (!isObject(item)) continue;
    if (item.type === 'function_call') {
      reply.push({
        type: 'tool-call',
        toolName: asText(item.name),
        ...(typeof item.callId === 'string' ? { toolCallId: item.callId } : {}),
        input: cut(asText(item.arguments)),
      });
    } else if (
      (item.type === 'message' || item.type === 'reasoning') &&
      Array.isArray(item.content)
    ) {
      for (const content of item.content) {
        if (isObject(content) && typeof content.text === 'string') {
          reply.push({
            type: item.type === 'message' ? 'text' : 'reasoning',
            text: cut(content.text),
          });
        }
      }
    }
  }
  return withReply(input, reply, response.usage, undefined);
}

/** A recorded `@openai/agents` stream: its final `response_done` event's response. */
function agentsStream(events: Json[]): ModelCallView | undefined {
  for (const event of events) {
    if (isObject(event) && event.type === 'response_done' && isObject(event.response)) {
      const response = event.response;
      return Array.isArray(response.output) ? agentsResponse(response) : undefined;
    }
  }
  return undefined;
}
