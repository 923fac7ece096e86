import { inject, injectable } from 'tsyringe';
import { Step, Workflow, WorkflowContext } from 'waymark';
import { fetchPage, webSearch, type Source } from './fakeWeb';
import { LLM, type Llm } from './Llm';

/** What a research run returns. */
export interface ResearchReport {
  topic: string;
  queries: string[];
  sources: Source[];
  summary: string;
}

/** The steps of a research run, in the order it takes them. */
export const RESEARCH_STEPS = ['plan', 'searchWeb', 'readSources', 'summarize'];

const MAX_SOURCES = 4;

/** The run id of `research(topic)`: one topic, one run, so calling again resumes it. */
export function researchRunId(topic: string): string {
  return `research:${topic.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/**
 * An agent that plans a search, reads the sources and summarizes them. Each step is
 * checkpointed: if the process dies, calling `research(topic)` again skips the steps that
 * completed and continues with the first one that did not.
 *
 * @example
 * ```ts
 * container.register(LLM, { useClass: FakeLlm });
 * const runtime = await Waymark.create({ database: 'sqlite:./research.db' });
 * const report = await container.resolve(ResearchAgent).research('durable execution');
 * await runtime.close();
 * ```
 */
@injectable()
export class ResearchAgent {
  constructor(
    @inject(LLM) private readonly llm: Llm,
    private readonly ctx: WorkflowContext,
  ) {}

  /** Researches `topic`: plan → searchWeb → readSources → summarize. */
  @Workflow({ name: 'research', id: researchRunId })
  async research(topic: string): Promise<ResearchReport> {
    const queries = await this.plan(topic);
    const sources = await this.searchWeb(queries);
    const notes = await this.readSources(sources);
    const summary = await this.summarize(topic, notes);
    return { topic, queries, sources, summary };
  }

  /** Asks the model which searches would cover the topic. */
  @Step()
  async plan(topic: string): Promise<string[]> {
    const answer = await this.llm.complete(
      `Topic: ${topic}\nList three web search queries that would research it, one per line.`,
      { signal: this.ctx.signal },
    );
    return answer
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  }

  /** Runs the searches in parallel and keeps the first distinct hits. */
  @Step()
  async searchWeb(queries: string[]): Promise<Source[]> {
    const hits = await Promise.all(queries.map((query) => webSearch(query, this.ctx.signal)));
    const byUrl = new Map(hits.flat().map((source) => [source.url, source]));
    return [...byUrl.values()].slice(0, MAX_SOURCES);
  }

  /** Reads every source; one note per source. */
  @Step()
  async readSources(sources: Source[]): Promise<string[]> {
    return Promise.all(sources.map((source) => fetchPage(source, this.ctx.signal)));
  }

  /** Asks the model to condense the notes. */
  @Step()
  async summarize(topic: string, notes: string[]): Promise<string> {
    const bullets = notes.map((note) => `- ${note}`).join('\n');
    return this.llm.complete(
      `Topic: ${topic}\nSummarize these notes in one sentence:\n${bullets}`,
      {
        signal: this.ctx.signal,
      },
    );
  }
}
