import type { FakeReply } from './replies';
import { splitText } from './replies';

type Answer = Extract<FakeReply, { kind: 'text' } | { kind: 'tools' }>;

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** A `chat.completion` body for a text or tool-call reply. */
export function completionBody(id: string, model: string, reply: Answer): unknown {
  const message =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: reply.calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  return {
    id,
    object: 'chat.completion',
    created: 1_760_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: reply.kind === 'text' ? 'stop' : 'tool_calls' }],
    usage: USAGE,
  };
}

/** The `chat.completion.chunk` payloads of a streamed reply, usage chunk included. */
export function completionChunks(id: string, model: string, reply: Answer): unknown[] {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (reply.kind === 'text') {
    for (const piece of splitText(reply.text, reply.chunks ?? 8))
      chunks.push(chunk({ content: piece }));
    chunks.push(chunk({}, 'stop'));
  } else {
    reply.calls.forEach((call, index) => {
      chunks.push(
        chunk({
          tool_calls: [
            {
              index,
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            },
          ],
        }),
      );
    });
    chunks.push(chunk({}, 'tool_calls'));
  }
  chunks.push({
    id,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model,
    choices: [],
    usage: USAGE,
  });
  return chunks;
}
