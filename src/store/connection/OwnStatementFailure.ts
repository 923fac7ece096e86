/**
 * One of waymark's own statements of a user's transaction failed (its BEGIN, its checkpoint,
 * its COMMIT): a failure of the store, never the user's step's, whatever the driver said.
 */
export class OwnStatementFailure extends Error {
  constructor(readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}
