/** The README's quickstart, as a program. */
import 'reflect-metadata';
import { container, injectable } from 'tsyringe';
import { Step, Waymark, Workflow, WorkflowContext } from 'waymark';

@injectable()
class ResearchAgent {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'research', id: (topic: string) => `research-${topic}` })
  async research(topic: string): Promise<string> {
    const sources = await this.search(topic); // checkpointed
    const notes = await this.read(sources); // checkpointed
    return this.summarize(notes); // checkpointed
  }

  @Step()
  async search(topic: string): Promise<string[]> {
    console.log('running search');
    return [`https://example.org/${topic}`];
  }

  @Step()
  async read(urls: string[]): Promise<string[]> {
    console.log('running read');
    await new Promise((resolve) => setTimeout(resolve, 3000)); // a slow fetch: time to kill -9
    return urls.map((url) => `notes from ${url}`);
  }

  @Step()
  async summarize(notes: string[]): Promise<string> {
    console.log('running summarize');
    return `${notes.length} source(s), run ${this.ctx.runId}`;
  }
}

async function main(): Promise<void> {
  const runtime = await Waymark.create({
    database: process.env.WAYMARK_DATABASE_URL ?? 'sqlite:./waymark.db',
  });
  const agent = container.resolve(ResearchAgent);
  console.log(await agent.research('durable-execution')); // runs, or resumes, or returns the stored result
  await runtime.close();
}

void main();
