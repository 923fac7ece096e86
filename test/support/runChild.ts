/**
 * Runs a child process's `main`: a failure is printed to stderr with its stack and the
 * process exits 1 — at once with `exit: 'now'` (a child whose open handles would keep it
 * alive), else when the event loop empties. The tests that spawn the child read both.
 */
export function runChild(main: () => Promise<void>, options: { exit?: 'now' } = {}): void {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    if (options.exit === 'now') process.exit(1);
    process.exitCode = 1;
  });
}
