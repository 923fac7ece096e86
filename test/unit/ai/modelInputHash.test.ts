import { modelInputHash, recordedFrom } from '../../../src/ai/modelInputHash';

describe('modelInputHash', () => {
  const prompt = [{ role: 'user', content: [{ type: 'text', text: 'Summarize: facts' }] }];

  it('is the same for the same input, whatever the key order or the abort signal', () => {
    const a = modelInputHash({ prompt, temperature: 0, abortSignal: new AbortController().signal });
    const b = modelInputHash({ temperature: 0, prompt });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when the prompt or a setting differs', () => {
    const base = modelInputHash({ prompt, temperature: 0 });
    const changed = [{ role: 'user', content: [{ type: 'text', text: 'Summarize: other' }] }];
    expect(modelInputHash({ prompt: changed, temperature: 0 })).not.toBe(base);
    expect(modelInputHash({ prompt, temperature: 1 })).not.toBe(base);
  });

  it('matches a recording only by its stored hash (one recorded before has none)', () => {
    const hash = modelInputHash({ prompt });
    expect(recordedFrom({ content: [], inputHash: hash }, hash)).toBe(true);
    expect(recordedFrom({ content: [] }, hash)).toBe(false);
    expect(recordedFrom(null, hash)).toBe(false);
  });
});
