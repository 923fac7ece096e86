import { crashMatrix } from 'waymark/testing';
import { ABANDONED_RUNS, RecordingLogger } from '../../test/support/RecordingLogger';
import { FakeLlm, LLM } from './Llm';
import { ResearchAgent, researchRunId } from './ResearchAgent';
import { latency } from './simulation';

describe('ResearchAgent under every crash', () => {
  beforeAll(() => (latency.scale = 0));
  afterAll(() => (latency.scale = 1));

  it('ends as an uninterrupted run does, whichever step it crashes at and wherever', async () => {
    const log = new RecordingLogger([ABANDONED_RUNS]);
    const report = await crashMatrix(ResearchAgent, 'research', ['durable execution'], {
      setup: (container) => container.register(LLM, { useValue: new FakeLlm() }),
      runtime: { logger: log },
    });
    expect(report).toSurviveEveryCrash();
    // Each case's restart reported the one run its crash left running, as a new process would.
    expect(log.abandoned()).toEqual(
      report.cases.map(() => ({ count: 1, ids: [researchRunId('durable execution')] })),
    );
  });
});
