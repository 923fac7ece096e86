/** Options of {@link WaymarkRuntime.signal}. */
export interface SignalOptions {
  /**
   * Delivers the signal at most once per run, signal name and key: a second send with the same
   * key stores nothing and answers `{ duplicate: true }` — also after the first was taken by a
   * wait, and after the run ended. 1 to 200 characters; a client-made id (a chat message's id,
   * a webhook's delivery id) makes a retried request safe.
   */
  idempotencyKey?: string;
}

/** What {@link WaymarkRuntime.signal} did. */
export interface SignalReceipt {
  /**
   * True when a signal with the same `idempotencyKey` had been sent to the run under the same
   * name already: this one was not stored (nothing woke, nothing was queued).
   */
  duplicate: boolean;
}
