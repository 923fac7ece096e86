import {
  asText,
  cut,
  isObject,
  withReply,
  type ConversationPart,
  type Json,
  type ModelCallView,
} from './conversationView';

/** An `@openai/agents` ModelResponse: output items (messages, function calls) and usage. */
export function agentsResponse(
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
export function agentsStream(events: Json[]): ModelCallView | undefined {
  for (const event of events) {
    if (isObject(event) && event.type === 'response_done' && isObject(event.response)) {
      const response = event.response;
      return Array.isArray(response.output) ? agentsResponse(response) : undefined;
    }
  }
  return undefined;
}
