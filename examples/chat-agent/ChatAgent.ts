import { streamText, type LanguageModel, type ModelMessage } from 'ai';
import { inject, injectable } from 'tsyringe';
import { isSignalTimeoutError, WaymarkRuntime, Workflow, WorkflowContext } from 'waymark';
import { durableModel } from 'waymark/ai';
import { CHAT_STREAM, type ChatEvent, type ChatMessage, type Turn } from './chatTypes';

/** The language model the agent talks to (the scripted one, or a real provider's). */
export const CHAT_MODEL = Symbol('CHAT_MODEL');

/**
 * A conversation as one long-lived run, its id the conversation's: it waits for signal
 * `message`, answers it with a streamed model call, and waits again. Messages that arrive
 * while it answers queue as signals and are answered in order; the page sends each with its
 * id as the idempotency key, so a message sent twice is one turn. The step results are the
 * transcript; the answers' tokens go to one durable stream a page reads by offset.
 */
@injectable()
export class ChatAgent {
  constructor(
    @inject(CHAT_MODEL) private readonly model: Exclude<LanguageModel, string>,
    private readonly ctx: WorkflowContext,
    private readonly runtime: WaymarkRuntime,
  ) {}

  @Workflow({ name: 'conversation' })
  async converse(_conversationId: string): Promise<number> {
    const model = durableModel(this.model as Parameters<typeof durableModel>[0], {
      stream: CHAT_STREAM,
    });
    const messages: ModelMessage[] = [];
    for (let turn = 0; ; turn++) {
      let message: ChatMessage;
      try {
        message = await this.ctx.waitForSignal<ChatMessage>('message', { timeout: '30d' });
      } catch (error) {
        if (isSignalTimeoutError(error)) return turn; // a month of silence ends it
        throw error;
      }
      await this.ctx.step('turn', () => this.open(turn, message));
      messages.push({ role: 'user', content: message.text });
      const answer = await streamText({
        model,
        messages,
        maxRetries: 0, // waymark retries the model call, with attempts that survive a crash
        onError: () => undefined, // a failure rejects `.text`, and the run handles it there
      }).text;
      messages.push({ role: 'assistant', content: answer });
      await this.ctx.step('reply', () => this.close(turn, message, answer));
    }
  }

  private async open(turn: number, message: ChatMessage): Promise<void> {
    const event: ChatEvent = { type: 'turn', turn, messageId: message.id, user: message.text };
    this.ctx.stream<ChatEvent>(CHAT_STREAM).write(event);
  }

  /** Ends the turn on the stream and records it, with where the stream goes on after it. */
  private async close(turn: number, message: ChatMessage, answer: string): Promise<Turn> {
    const out = this.ctx.stream<ChatEvent>(CHAT_STREAM);
    out.write({ type: 'done', turn });
    await out.flush();
    const streams = await this.runtime.streams(this.ctx.runId);
    const end = streams.find((s) => s.name === CHAT_STREAM)?.length ?? 0;
    return { turn, messageId: message.id, user: message.text, answer, end };
  }
}
