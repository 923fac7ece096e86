import type { WaymarkRuntime } from 'waymark';
import type { Turn } from './chatTypes';

/** One page of a conversation's transcript, oldest turn first. */
export interface TranscriptPage {
  turns: Turn[];
  /** Where the next page starts (a step sequence number); null after the last turn. */
  nextCursor: number | null;
}

const STEPS_PER_READ = 200;

/**
 * Up to `limit` answered turns from `cursor` on, read from the run's history: each turn's
 * `reply` step recorded it. Built on `runtime.history()` pages, so a long conversation is
 * never read whole.
 */
export async function readTranscript(
  runtime: WaymarkRuntime,
  conversationId: string,
  cursor: number,
  limit: number,
): Promise<TranscriptPage> {
  const turns: Turn[] = [];
  for (let from = cursor; ;) {
    const steps = await runtime.history(conversationId, {
      from,
      limit: STEPS_PER_READ,
      valueChars: Infinity,
    });
    for (const step of steps) {
      if (step.name !== 'reply' || step.status !== 'completed' || !step.output) continue;
      turns.push(JSON.parse(step.output.json) as Turn);
      if (turns.length === limit) return { turns, nextCursor: step.seq + 1 };
    }
    const last = steps.at(-1);
    if (!last || steps.length < STEPS_PER_READ) return { turns, nextCursor: null };
    from = last.seq + 1;
  }
}
