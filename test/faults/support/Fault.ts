import type { Completion, StatementInfo } from './StatementInfo';

/**
 * What to do with a client statement before the server sees it:
 * - `cut-before`: drop it and destroy both sides of the connection; the server never ran it.
 * - `delay`: hold it (and everything after it on this connection) `ms` before forwarding.
 */
export type StatementFault = { readonly kind: 'cut-before' } | DelayFault;

/**
 * What to do once the server has finished a statement, before the client sees the reply:
 * - `lost-ack`: withhold the reply and destroy the connection. After a write whose
 *   completion reports `idle`, the server has committed and the client never hears it.
 * - `cut-mid-transaction`: destroy the connection, after forwarding the reply if
 *   `forwardReply`; meant for a completion reporting `transaction`, whose transaction the
 *   server then rolls back. The proxy cuts whatever the status and logs it.
 * - `delay`: hold the reply (and everything after it on this connection) `ms`.
 */
export type CompletionFault =
  | { readonly kind: 'lost-ack' }
  | { readonly kind: 'cut-mid-transaction'; readonly forwardReply: boolean }
  | DelayFault;

/** Holds one direction of a connection: a slow or stalled database. */
export interface DelayFault {
  readonly kind: 'delay';
  readonly ms: number;
}

/**
 * Decides, per statement, whether to inject a fault; `undefined` forwards it untouched.
 * Called synchronously in the order the connection's statements arrive, so a seeded PRNG
 * drawn here gives the same faults for the same traffic.
 */
export type StatementDecider = (statement: StatementInfo) => StatementFault | undefined;

/** Decides, per completion, whether to inject a fault; `undefined` forwards the reply. */
export type CompletionDecider = (completion: Completion) => CompletionFault | undefined;

/** Every fault the proxy records, including the ones injected on command. */
export type FaultKind = StatementFault['kind'] | CompletionFault['kind'] | 'refuse' | 'cut-all';
