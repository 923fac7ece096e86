import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

/** The scripted model's answer to `text`: long enough to watch it stream, and to reload in. */
export function scriptedAnswer(text: string, turn: number): string {
  const words = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');
  return `Turn ${turn + 1}: you said "${text}". Counting while I think: ${words.join(' ')}. Done.`;
}

/**
 * A stand-in model for running without an API key: it streams {@link scriptedAnswer} word
 * by word, `delayMs` apart, and calls `onCall` for each call really made (the examples print
 * it, so a test can tell a replayed turn from one asked again).
 */
export function scriptedChatModel(
  delayMs: number,
  onCall: (user: string) => void = () => undefined,
): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: 'scripted-chat',
    doStream: async ({ prompt }) => {
      const users = prompt.filter((message) => message.role === 'user');
      const last = users.at(-1)?.content;
      const text = Array.isArray(last)
        ? last.map((part) => (part.type === 'text' ? part.text : '')).join('')
        : '';
      onCall(text);
      const words = scriptedAnswer(text, users.length - 1).split(/(?<= )/);
      return {
        stream: simulateReadableStream({
          initialDelayInMs: delayMs,
          chunkDelayInMs: delayMs,
          chunks: [
            { type: 'stream-start' as const, warnings: [] },
            { type: 'text-start' as const, id: 't' },
            ...words.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
            { type: 'text-end' as const, id: 't' },
            {
              type: 'finish' as const,
              finishReason: { unified: 'stop' as const, raw: 'stop' },
              usage,
            },
          ],
        }),
      };
    },
  });
}
