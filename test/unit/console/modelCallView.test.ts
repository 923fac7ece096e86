import {
  MAX_PART_TEXT,
  MAX_VIEW_PARTS,
  MAX_VIEW_TEXT,
} from '../../../src/console/conversationView';
import { modelCallView } from '../../../src/console/modelCallView';
import { toolCallView } from '../../../src/console/toolCallView';

describe('modelCallView and toolCallView: a waymark/ai step as the console reads it', () => {
  it('reads an AI SDK result with its prompt’s new messages, the codec’s markers dropped', () => {
    const stored = {
      content: [
        { type: 'reasoning', text: 'look it up' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"id":"1"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: {
        inputTokens: { total: 12, cacheWrite: { $wm: 'undefined' } },
        outputTokens: { total: 3 },
      },
      response: { timestamp: { $wm: 'Date', v: '2026-01-01T00:00:00.000Z' } },
      newMessages: [
        { role: 'system', content: [{ type: 'text', text: 'be brief' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'where is 1?' },
            { type: 'file', mediaType: 'image/png' },
          ],
        },
      ],
    };
    expect(modelCallView(JSON.stringify(stored))).toEqual({
      messages: [
        { role: 'system', parts: [{ type: 'text', text: 'be brief' }] },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'where is 1?' },
            { type: 'text', text: '[file image/png]' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'look it up' },
            { type: 'tool-call', toolName: 'lookup', toolCallId: 'c1', input: '{"id":"1"}' },
          ],
        },
      ],
      usage: { inputTokens: 12, outputTokens: 3 },
      finishReason: 'tool-calls',
    });
  });

  it('reads tool results, a recorded stream’s deltas joined, and an Agents SDK response', () => {
    const stream = {
      parts: [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Shipped' },
        { type: 'text-delta', id: 't', delta: ' today.' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: { total: 5 } } },
      ],
      newMessages: [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'lookup',
              output: { type: 'json', value: { status: 'shipped' } },
            },
          ],
        },
      ],
    };
    expect(modelCallView(JSON.stringify(stream))).toEqual({
      messages: [
        {
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              toolName: 'lookup',
              toolCallId: 'c1',
              output: '{"status":"shipped"}',
            },
          ],
        },
        { role: 'assistant', parts: [{ type: 'text', text: 'Shipped today.' }] },
      ],
      usage: { inputTokens: 5, outputTokens: undefined },
      finishReason: 'stop',
    });
    const agents = {
      output: [
        { type: 'function_call', name: 'refund', arguments: '{"amount":40}', callId: 'k1' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
      ],
      usage: { inputTokens: 7, outputTokens: 2 },
    };
    expect(modelCallView(JSON.stringify(agents))).toEqual({
      messages: [
        {
          role: 'assistant',
          parts: [
            { type: 'tool-call', toolName: 'refund', toolCallId: 'k1', input: '{"amount":40}' },
            { type: 'text', text: 'Done.' },
          ],
        },
      ],
      usage: { inputTokens: 7, outputTokens: 2 },
    });
  });

  it('cuts long texts and many parts, and reads nothing from a value it does not know', () => {
    const long = 'x'.repeat(MAX_PART_TEXT + 10);
    const longParts = Array.from({ length: 10 }, () => ({ type: 'text', text: long }));
    const byText = modelCallView(JSON.stringify({ content: longParts }))!.messages[0].parts;
    const fit = Math.floor(MAX_VIEW_TEXT / (MAX_PART_TEXT + 23));
    expect(byText[0]).toEqual({
      type: 'text',
      text: `${'x'.repeat(MAX_PART_TEXT)}… (10 more characters)`,
    });
    expect(byText).toHaveLength(fit + 1);
    expect(byText[fit]).toEqual({
      type: 'text',
      text: `(${10 - fit} more parts: waymark show <run> --json prints them)`,
    });
    const shortParts = Array.from({ length: MAX_VIEW_PARTS + 5 }, () => ({
      type: 'text',
      text: 'a',
    }));
    const byCount = modelCallView(JSON.stringify({ content: shortParts }))!.messages[0].parts;
    expect(byCount).toHaveLength(MAX_VIEW_PARTS);
    expect(byCount[MAX_VIEW_PARTS - 1]).toEqual({
      type: 'text',
      text: '(6 more parts: waymark show <run> --json prints them)',
    });
    expect(modelCallView('{"content":[{"type":"te')).toBeUndefined();
    expect(modelCallView('{"answer":42}')).toBeUndefined();
    expect(modelCallView('"text"')).toBeUndefined();
  });

  it('names a tool step’s call from its idempotency key', () => {
    expect(toolCallView('r1', 'tool:lookup', 'r1:tool:c1', '{"status":"shipped"}')).toEqual({
      toolName: 'lookup',
      toolCallId: 'c1',
      output: '{"status":"shipped"}',
    });
    expect(toolCallView('r1', 'tool:lookup', 'r1:order-7', undefined)).toEqual({
      toolName: 'lookup',
    });
  });
});
