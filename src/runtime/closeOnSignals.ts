import type { Disposable } from '../ground/Disposable';

/**
 * On SIGTERM or SIGINT (a deploy, Ctrl-C), runs `close` once, then exits the process unless
 * told not to. Until disposed.
 */
export function closeOnSignals(close: () => Promise<void>, exit: boolean): Disposable {
  const onSignal = (): void => {
    void close().finally(() => {
      if (exit) process.exit(0);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return {
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
