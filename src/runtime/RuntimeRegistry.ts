import type { RuntimeKernel } from './RuntimeKernel';

const open: RuntimeKernel[] = [];

/**
 * Which runtime serves a workflow called outside any run: the most recently created one
 * that is still open. Tests that restart a runtime get the new one automatically.
 */
export const RuntimeRegistry = {
  activate(kernel: RuntimeKernel): void {
    open.push(kernel);
  },
  deactivate(kernel: RuntimeKernel): void {
    const index = open.indexOf(kernel);
    if (index >= 0) open.splice(index, 1);
  },
  current(): RuntimeKernel | undefined {
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i].lifecycle.isOpen) return open[i];
    }
    return undefined;
  },
};
