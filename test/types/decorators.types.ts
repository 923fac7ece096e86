/**
 * Compile-time contract of the decorators: every `@ts-expect-error` below must be an
 * error, and everything else must compile. Checked by `tsc` in `npm test`; never run.
 */
import { Idempotent, Retry, Step, Workflow, type RetryOptions } from 'waymark';

class NotAnError {
  readonly reason = 'not an Error';
}

class RateLimitError extends Error {}

class Client {
  constructor(readonly url: string) {}
  send(): void {}
}

interface Request {
  id: string;
  amount: number;
}

export class Compiles {
  @Workflow({ name: 'types.ok', version: '1', id: (req: Request) => `req-${req.id}` })
  async run(
    req: Request,
    note?: string,
  ): Promise<{ id: string; at: Date; total: bigint; note?: string }> {
    await this.fetch(req.id);
    return { id: req.id, at: new Date(), total: BigInt(req.amount), note };
  }

  @Step({ timeout: '30s', name: 'fetch' })
  @Retry({
    maxAttempts: 5,
    backoff: { initial: '1s', factor: 2, max: '1m', jitter: 'decorrelated' },
    retryOn: [RateLimitError, (e) => (e as { status?: number }).status === 503],
    abortOn: [TypeError],
    maxDelay: '5m',
    onExhausted: 'intervene',
  })
  async fetch(id: string): Promise<Map<string, Set<number>>> {
    return new Map([[id, new Set([1])]]);
  }

  @Step({ timeout: 1500 })
  @Retry({ backoff: { fixed: '250ms' } })
  async bytes(): Promise<Buffer> {
    return Buffer.from('ok');
  }

  @Step()
  async nothing(): Promise<void> {}
}

export class DurationsAreChecked {
  // @ts-expect-error '3 days' is not a Duration
  @Step({ timeout: '3 days' })
  async slow(): Promise<void> {}

  // @ts-expect-error a unit that does not exist
  @Retry({ backoff: { initial: '1 week' } })
  @Step()
  async weekly(): Promise<void> {}
}

export class RetryOptionsAreChecked {
  @Step()
  // @ts-expect-error maxAttempts is a number
  @Retry({ maxAttempts: '3' })
  async quoted(): Promise<void> {}

  @Step()
  // @ts-expect-error retryOn takes Error classes or predicates, not any class
  @Retry({ retryOn: [NotAnError] })
  async notAnError(): Promise<void> {}

  @Step()
  // @ts-expect-error an unknown jitter mode
  @Retry({ backoff: { jitter: 'sometimes' } })
  async jitter(): Promise<void> {}

  @Step()
  // @ts-expect-error onExhausted is 'throw' or 'intervene'
  @Retry({ onExhausted: 'later' })
  async later(): Promise<void> {}
}

export class ResultsMustBeStorable {
  // @ts-expect-error a step returning a function
  @Step()
  async callback(): Promise<() => void> {
    return () => undefined;
  }

  // @ts-expect-error a function nested in the result
  @Step()
  async nested(): Promise<{ items: Array<{ client: () => void }> }> {
    return { items: [] };
  }

  // @ts-expect-error a class instance with methods
  @Step()
  async connect(): Promise<Client> {
    return new Client('x');
  }

  // @ts-expect-error a workflow returning a symbol
  @Workflow()
  async symbol(): Promise<symbol> {
    return Symbol('x');
  }

  // @ts-expect-error a step must return a Promise
  @Step()
  sync(): string {
    return 'x';
  }
}

export class WorkflowIdIsTyped {
  // @ts-expect-error the id function reads a number where the method takes a Request
  @Workflow({ id: (n: number) => `n-${n}` })
  async run(_req: Request): Promise<void> {}
}

// Options objects can be declared apart and still checked.
export const shared: RetryOptions = { maxAttempts: 3, backoff: { fixed: '1s' } };
// @ts-expect-error jitter belongs to exponential backoff only
export const mixed: RetryOptions = { backoff: { fixed: '1s', jitter: 'full' } };

interface Draft {
  id: string;
}

export class IdempotencyKeysAreTyped {
  @Step()
  @Idempotent({ key: (d: Draft) => `submit-${d.id}`, scope: 'global' })
  async submit(d: Draft, _note: string): Promise<string> {
    return d.id;
  }

  @Step()
  // @ts-expect-error the key function reads a number, the method takes a Draft
  @Idempotent({ key: (n: number) => `n-${n}` })
  async wrongType(_d: Draft): Promise<void> {}

  @Step()
  // @ts-expect-error scope is 'run' or 'global'
  @Idempotent({ key: (d: Draft) => d.id, scope: 'everywhere' })
  async wrongScope(_d: Draft): Promise<void> {}
}
