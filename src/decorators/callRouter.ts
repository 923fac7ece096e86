import type { StepPlan } from './StepPlan';
import type { WorkflowPlan } from './WorkflowPlan';

/**
 * Where calls of decorated methods go. Decorators only record metadata; the runtime
 * installs the router that decides, at call time, what a call means (a step of the current
 * run, a child run, a new run, or a plain call).
 */
export interface CallRouter {
  workflow(instance: object, plan: WorkflowPlan, args: unknown[]): Promise<unknown>;
  step(
    instance: object,
    plan: StepPlan,
    body: (...args: unknown[]) => unknown,
    args: unknown[],
  ): Promise<unknown>;
}

let installed: CallRouter | undefined;

/** Installs the runtime's router (once, when the runtime module loads). */
export function installCallRouter(router: CallRouter): void {
  installed = router;
}

/** The router calls of decorated methods go through. */
export function callRouter(): CallRouter {
  if (!installed) throw new Error('internal: waymark runtime not loaded');
  return installed;
}
