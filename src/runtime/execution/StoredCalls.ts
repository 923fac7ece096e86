import type { Constructor } from '../../model/Constructor';
import type { Codec } from '../../codec/Codec';
import { workflowPlanOf } from '../../decorators/Plans';
import { findWorkflow } from '../../decorators/WorkflowRegistry';
import { WorkflowNotRegisteredError } from '../../errors/WorkflowNotRegisteredError';
import type { RunRow } from '../../store/rows';
import type { RunIdentity } from './Acquisition';
import type { WorkflowCall } from './WorkflowCall';

/** Makes the instance of a workflow class a stored run calls (the runtime's container). */
export type ResolveInstance = (Class: Constructor) => object;

/** The call a stored run makes: its workflow's class and method, instance and arguments. */
export class StoredCalls {
  constructor(
    private readonly codec: Codec,
    private readonly resolveInstance: ResolveInstance,
  ) {}

  /** Whether the workflow of `row` is loaded in this process. */
  loaded(row: RunRow): boolean {
    return findWorkflow(row.workflow) !== undefined;
  }

  callFor(row: RunRow): WorkflowCall {
    const address = findWorkflow(row.workflow);
    if (!address) throw new WorkflowNotRegisteredError(row.workflow);
    const plan = workflowPlanOf(address.target, address.methodName);
    if (!plan) throw new WorkflowNotRegisteredError(row.workflow);
    const args = this.codec.decode(row.args, `run "${row.id}" args`) as unknown[];
    return { instance: this.resolveInstance(address.target), plan, args };
  }
}

/** Who a stored run is: a run id names one call of one workflow. */
export function identityOf(row: RunRow): RunIdentity {
  return { workflow: row.workflow, args: row.args };
}
