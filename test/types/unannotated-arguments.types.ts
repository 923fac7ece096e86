import { Idempotent, Step, Workflow } from 'waymark';

/**
 * Argument functions whose parameters are not annotated compile as they always did: their
 * parameters are `any` (the decorator cannot see the method's parameter types from there).
 */
export class Unannotated {
  @Workflow({ id: (order) => order.id })
  async run(order: { id: string }): Promise<string> {
    return this.charge(order);
  }

  @Step()
  @Idempotent({ key: (order) => order.id })
  async charge(order: { id: string }): Promise<string> {
    return order.id;
  }
}
