import { injectable } from 'tsyringe';
import {
  ConfigurationError,
  NoRuntimeError,
  NotInRunError,
  Step,
  Workflow,
  WorkflowContext,
  Idempotent,
} from 'waymark';
import { findWorkflow } from '../../../src/decorators/WorkflowRegistry';
import { validateClassPolicies } from '../../../src/decorators/validateClassPolicies';
import { readMethodPolicies, recordPolicy } from '../../../src/decorators/metadata';
import { applyArgs } from '../../../src/model/ArgsFunction';

describe('@Workflow and @Step record validated, frozen metadata', () => {
  it('records names, defaults and the original body', () => {
    class Shop {
      @Workflow({ name: 'checkout', version: '2', id: (order: string) => `co-${order}` })
      async checkout(order: string): Promise<string> {
        return this.pay(order);
      }

      @Step({ timeout: '30s' })
      async pay(order: string): Promise<string> {
        return order;
      }
    }
    const workflow = readMethodPolicies(Shop, 'checkout');
    expect(workflow?.workflow).toMatchObject({ name: 'checkout', version: '2' });
    const id = workflow?.workflow?.id;
    expect(id && applyArgs(id, ['o1'])).toBe('co-o1');
    expect(readMethodPolicies(Shop, 'pay')?.step).toEqual({
      name: 'pay',
      timeoutMs: 30_000,
      atMostOnce: false,
      onUnknown: 'throw',
      transactional: false,
    });
    expect(Object.isFrozen(readMethodPolicies(Shop, 'pay'))).toBe(true);
    expect(Object.isFrozen(readMethodPolicies(Shop, 'pay')?.step)).toBe(true);
    expect(findWorkflow('checkout')).toEqual({ target: Shop, methodName: 'checkout' });
  });

  it('names a workflow Class.method by default', () => {
    class Mailer {
      @Workflow()
      async send(): Promise<void> {}
    }
    expect(readMethodPolicies(Mailer, 'send')?.workflow?.name).toBe('Mailer.send');
  });

  it('finds policies declared on a base class', () => {
    class Base {
      @Step()
      async fetch(): Promise<number> {
        return 1;
      }
    }
    class Derived extends Base {}
    expect(readMethodPolicies(Derived, 'fetch')?.step?.name).toBe('fetch');
  });
});

describe('misuse is a ConfigurationError naming the class and method', () => {
  const define = (fn: () => void): ConfigurationError => {
    try {
      fn();
    } catch (error) {
      if (error instanceof ConfigurationError) return error;
      throw error;
    }
    throw new Error('expected a ConfigurationError');
  };

  it('an unknown option names the option', () => {
    const error = define(() => {
      class Agent {
        @Step({ timout: '1s' } as never)
        async draft(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toBe('@Step on Agent.draft: unknown option "timout"');
  });

  it('a duration that is not one names the value', () => {
    const error = define(() => {
      class Agent {
        @Step({ timeout: '3 days' as never })
        async draft(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toMatch(
      /^@Step on Agent\.draft: option "timeout" .*duration.*\(got "3 days"\)$/,
    );
  });

  it('a wrong type names the option and what was given', () => {
    const error = define(() => {
      class Agent {
        @Step({ atMostOnce: 'yes' as never })
        async send(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toMatch(
      /@Step on Agent\.send: option "atMostOnce" .*boolean.*\(got "yes"\)/,
    );
  });

  it('a method cannot be both a workflow and a step', () => {
    const error = define(() => {
      class Agent {
        @Workflow()
        @Step()
        async both(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toBe(
      '@Workflow on Agent.both: a method cannot be both @Workflow and @Step',
    );
  });

  it('@Step applied twice is refused', () => {
    const error = define(() => {
      class Agent {
        @Step()
        @Step()
        async twice(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toBe('@Step on Agent.twice: @Step is applied twice');
  });

  it('a static method is refused', () => {
    const error = define(() => {
      class Agent {
        @Step()
        static async tool(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toBe(
      '@Step on Agent.tool: decorate an instance method, not a static one',
    );
  });

  it('onUnknown needs atMostOnce', () => {
    const error = define(() => {
      class Agent {
        @Step({ onUnknown: 'intervene' })
        async notify(): Promise<void> {}
      }
      return Agent;
    });
    expect(error.message).toBe(
      '@Step on Agent.notify: onUnknown only applies with atMostOnce: true',
    );
  });

  it('two different classes cannot claim one workflow name', () => {
    class First {
      @Workflow({ name: 'shared-name' })
      async run(): Promise<void> {}
    }
    expect(First).toBeDefined();
    const error = define(() => {
      class Second {
        @Workflow({ name: 'shared-name' })
        async run(): Promise<void> {}
      }
      return Second;
    });
    expect(error.message).toMatch(/"shared-name" is already used by First\.run/);
  });

  it('a policy that needs @Step is refused at registration when the method has none', () => {
    class Tools {
      async lookup(): Promise<void> {}
    }
    recordPolicy(Tools, 'lookup', Tools.prototype.lookup, 'retry', { maxAttempts: 3 });
    expect(() => validateClassPolicies(Tools)).toThrow(
      new ConfigurationError('@Retry on Tools.lookup needs @Step on the same method'),
    );
  });
});

describe('calls outside a runtime', () => {
  @injectable()
  class Calculator {
    constructor(readonly ctx: WorkflowContext) {}

    @Workflow()
    async total(values: number[]): Promise<number> {
      return values.reduce((a, b) => a + b, 0);
    }

    @Step()
    async double(x: number): Promise<number> {
      return (await this.inner(x)) * 2;
    }

    @Step()
    async inner(x: number): Promise<number> {
      return x;
    }

    @Step()
    async fails(): Promise<never> {
      throw new TypeError('bad input');
    }
  }

  const calculator = new Calculator(new WorkflowContext());

  it('a step called outside a run is a plain call', async () => {
    await expect(calculator.double(21)).resolves.toBe(42);
    await expect(calculator.fails()).rejects.toThrow(TypeError);
  });

  it('a workflow called with no runtime open says how to open one', async () => {
    await expect(calculator.total([1, 2])).rejects.toThrow(NoRuntimeError);
    await expect(calculator.total([1, 2])).rejects.toThrow(
      /call await Waymark\.create\(\{ database \}\) first/,
    );
  });

  it('WorkflowContext gives plain values outside a run and refuses run-only fields', () => {
    const ctx = calculator.ctx;
    expect(ctx.inRun).toBe(false);
    expect(ctx.now()).toBeInstanceOf(Date);
    expect(ctx.random()).toBeGreaterThanOrEqual(0);
    expect(ctx.uuid()).toMatch(/^[0-9a-f-]{36}$/);
    expect(() => ctx.runId).toThrow(NotInRunError);
    expect(() => ctx.idempotencyKey).toThrow(
      'WorkflowContext.idempotencyKey is only available inside a step of a run',
    );
  });
});

describe('side-effect options that contradict each other are refused at registration', () => {
  it("scope 'global' needs a key function", () => {
    class Billing {
      @Step()
      @Idempotent({ scope: 'global' })
      async bill(): Promise<void> {}
    }
    expect(() => validateClassPolicies(Billing)).toThrow(
      "@Idempotent on Billing.bill: scope 'global' needs a key function, e.g. key: (order) => order.id",
    );
  });

  it('a transactional step cannot also be at-most-once', () => {
    class Ledger {
      @Step({ transactional: true, atMostOnce: true })
      async post(): Promise<void> {}
    }
    expect(() => validateClassPolicies(Ledger)).toThrow(
      /transactional and atMostOnce exclude each other/,
    );
  });

  it('@Idempotent without @Step names the class and method', () => {
    class Mailer {
      @Idempotent({ key: (to: string) => to })
      async send(_to: string): Promise<void> {}
    }
    expect(() => validateClassPolicies(Mailer)).toThrow(
      '@Idempotent on Mailer.send needs @Step on the same method',
    );
  });
});
