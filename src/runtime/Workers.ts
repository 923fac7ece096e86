import type { Lifecycle } from '../ground/Lifecycle';
import type { Shutdown } from './Shutdown';
import { Worker, type WorkerDeps, type WorkerOptions } from './Worker';

/** Starts this runtime's workers; each stops when the runtime closes. */
export class Workers {
  constructor(
    private readonly deps: WorkerDeps,
    private readonly lifecycle: Lifecycle,
    private readonly shutdown: Shutdown,
  ) {}

  start(options: WorkerOptions | undefined): Worker {
    this.lifecycle.assertOpen('start a worker');
    const worker = new Worker(this.deps, options);
    this.shutdown.addWorker(worker);
    return worker;
  }
}
