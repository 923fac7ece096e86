import { MockLanguageModelV3 } from 'ai/test';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A stand-in model for running without an API key: it looks order 1 up, then answers. */
export function scriptedModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: 'scripted',
    doGenerate: async ({ prompt }) => {
      const looked = prompt.some((message) => message.role === 'tool');
      return looked
        ? {
            content: [{ type: 'text', text: 'Order 1 was delivered.' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'call_1',
                toolName: 'lookupOrder',
                input: JSON.stringify({ orderId: '1' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
    },
  });
}
