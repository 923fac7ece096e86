import type { Completion, StatementCommand, StatementInfo } from './StatementInfo';

/** Client bytes to forward in order; `statement` marks one whole client statement. */
export interface ClientUnit {
  readonly bytes: Buffer;
  readonly statement: StatementInfo | undefined;
}

/** Server bytes to forward in order; `completion` marks a statement's whole reply. */
export interface ServerUnit {
  readonly bytes: Buffer;
  readonly completion: Completion | undefined;
}

/** Numbers and classifies a statement a session has found. */
export type OpenStatement = (
  command: StatementCommand,
  sql: string,
  inTransaction: boolean,
) => StatementInfo;

/**
 * One connection's wire protocol, read in both directions: it buffers partial messages and
 * hands back every byte it was given, in order, cut at the points where a fault may strike.
 * A reply is held back until its completion, so that a fault there withholds all of it.
 */
export interface WireSession {
  /** Frames a chunk the client sent; what is not yet a whole statement stays queued. */
  fromClient(chunk: Buffer): ClientUnit[];
  /** Frames a chunk the server sent; a reply stays queued until it is complete. */
  fromServer(chunk: Buffer): ServerUnit[];
  /** The server's bytes still held (a reply cut short by the server closing), to forward. */
  drainServer(): Buffer;
}

/** Bytes that carry no decision point. */
export function plain(bytes: Buffer): ClientUnit & ServerUnit {
  return { bytes, statement: undefined, completion: undefined };
}
