import { injectable, type InjectionToken } from 'tsyringe';
import { fingerprint, simulateLatency } from './simulation';

/** A text-completion model. The example uses {@link FakeLlm}; a real one wraps a provider SDK. */
export interface Llm {
  /** Completes `prompt`. `signal` aborts the request (a step timeout, a cancelled run). */
  complete(prompt: string, options?: { signal?: AbortSignal }): Promise<string>;
}

/**
 * The container token of the {@link Llm}.
 *
 * @example
 * ```ts
 * container.register(LLM, { useClass: FakeLlm });
 * ```
 */
export const LLM: InjectionToken<Llm> = Symbol('Llm');

/**
 * A stand-in model: no network, the same answer for the same prompt, 150–300 ms per call.
 * It answers the two prompts `ResearchAgent` sends: a request for search queries, and a
 * request to summarize notes (the answer carries a digest of the whole prompt).
 */
@injectable()
export class FakeLlm implements Llm {
  async complete(prompt: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    await simulateLatency(prompt, options.signal);
    const topic = /^Topic: (.+)$/m.exec(prompt)?.[1] ?? 'this subject';
    if (/search queries/i.test(prompt)) {
      return [`${topic} overview`, `${topic} failure modes`, `${topic} in production`].join('\n');
    }
    const notes = prompt.split('\n').filter((line) => line.startsWith('- ')).length;
    return `${notes} sources agree: ${topic} saves progress step by step. [${fingerprint(prompt)}]`;
  }
}
