import type { InjectionToken } from 'tsyringe';
import type { EffectRecorder } from './EffectRecorder';

/** An e-mail to send. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends e-mail. Like most SMTP relays, it has no idempotency key: every call sends. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * The container token of the {@link Mailer}.
 *
 * @example
 * ```ts
 * container.registerInstance(MAILER, new FakeMailer());
 * ```
 */
export const MAILER: InjectionToken<Mailer> = Symbol('Mailer');

/**
 * An in-memory mailer: every call "sends", into {@link sent} and, when given a recorder, as
 * `mail:<to>`. Calling it twice sends twice, which is what the at-most-once step guards against.
 */
export class FakeMailer implements Mailer {
  /** Every mail sent, in order. */
  readonly sent: Mail[] = [];

  constructor(private readonly recorder?: EffectRecorder) {}

  async send(mail: Mail): Promise<void> {
    this.sent.push(mail);
    await this.recorder?.record(`mail:${mail.to}`, mail.subject);
  }
}
