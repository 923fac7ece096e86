import { crashMatrix } from 'waymark/testing';
import { FakeLlm, LLM } from './Llm';
import { ResearchAgent } from './ResearchAgent';
import { latency } from './simulation';

describe('ResearchAgent under every crash', () => {
  beforeAll(() => (latency.scale = 0));
  afterAll(() => (latency.scale = 1));

  it('ends as an uninterrupted run does, whichever step it crashes at and wherever', async () => {
    const report = await crashMatrix(ResearchAgent, 'research', ['durable execution'], {
      setup: (container) => container.register(LLM, { useValue: new FakeLlm() }),
    });
    expect(report).toSurviveEveryCrash();
  });
});
