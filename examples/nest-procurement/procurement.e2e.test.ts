import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import type { PurchaseView } from './PurchasesController';
import { createTestDatabase, type Backend, type TestDatabase } from '../../test/support/databases';
import { AppModule } from './AppModule';
import { ERP, LLM, type FakeErp, type FakeLlm } from './fakes';
import { ProcurementService, type PurchaseRequest } from './ProcurementService';

const REPO_ROOT = resolve(__dirname, '..', '..');
const purchase: PurchaseRequest = {
  id: '1042',
  item: 'Standing desk',
  quantity: 4,
  unitPrice: 45_000,
  requester: 'ada@acme.example',
};
const RUN_ID = 'po-1042';
const APPROVER = 'dana@acme.example';

/**
 * `main.ts` in a child process: the first app instance. SIGKILL ends it the way a crash or
 * an OOM kill does — no shutdown hook, no `runtime.close()`, no hand-over.
 */
class AppProcess {
  private stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(private readonly child: ChildProcessByStdio<null, Readable, Readable>) {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((done) =>
      child.once('close', (code, signal) => done({ code, signal })),
    );
  }

  /** Starts the app on `database` and any free port; resolves with its URL once it listens. */
  static async start(database: string): Promise<{ app: AppProcess; url: string }> {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', 'examples/nest-procurement/main.ts'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, WAYMARK_DATABASE_URL: database, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const app = new AppProcess(child);
    let stdout = '';
    const url = await new Promise<string>((listening, failed) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /^listening on (\S+)$/m.exec(stdout);
        if (match) listening(match[1]);
      });
      void app.exited.then((exit) =>
        failed(new Error(`the app exited (${JSON.stringify(exit)}):\n${stdout}\n${app.stderr}`)),
      );
    });
    return { app, url };
  }

  /** Kills the process outright and waits until it is gone. */
  async kill(): Promise<NodeJS.Signals | null> {
    this.child.kill('SIGKILL');
    return (await this.exited).signal;
  }
}

/** The second app instance, in this process, so the test can ask Nest for its providers. */
async function startApp(database: string): Promise<INestApplication<Server>> {
  const testing = await Test.createTestingModule({
    imports: [AppModule.forRoot({ database })],
  }).compile();
  const app = testing.createNestApplication<INestApplication<Server>>({
    logger: ['error', 'warn'],
  });
  await app.init();
  return app;
}

/** GETs the run until `done` accepts it. */
async function until(
  api: ReturnType<typeof request>,
  runId: string,
  done: (run: PurchaseView) => boolean,
): Promise<PurchaseView> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await api.get(`/purchases/${runId}`).expect(200);
    const run = response.body as PurchaseView;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last seen: ${response.text}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

const steps = (run: PurchaseView): string[] => run.steps.map((s) => `${s.name} ${s.status}`);

describe.each<Backend>(['sqlite-file', 'mariadb'])('the Nest procurement app on %s', (backend) => {
  let db: TestDatabase;
  let first: AppProcess | undefined;
  let second: INestApplication<Server> | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });

  afterAll(async () => {
    await first?.kill();
    await second?.close();
    await db?.drop();
  });

  it('finishes a run in a new app instance, with Nest-injected dependencies, after the first was killed mid-run', async () => {
    const started = await AppProcess.start(db.url);
    first = started.app;
    const api1 = request(started.url);
    await api1.post('/purchases').send(purchase).expect(202, { runId: RUN_ID });
    const waiting = await until(api1, RUN_ID, (run) => run.status === 'waiting');
    expect(waiting.waitingFor).toBe('signal:approval');
    expect(steps(waiting)).toEqual([
      'draft completed',
      'submit completed',
      'signal:approval started',
    ]);

    const streamed = await api1.get(`/purchases/${RUN_ID}/streams/draft`).expect(200);
    expect(streamed.headers['content-type']).toContain('text/event-stream');
    expect(streamed.text).toMatch(/^id: 0\ndata: \{"seq":0,"chunk":"[^"]+"\}$/m);

    await expect(first.kill()).resolves.toBe('SIGKILL');

    second = await startApp(db.url);
    const api2 = request(second.getHttpServer());
    const erp = second.get<FakeErp>(ERP);
    const llm = second.get<FakeLlm>(LLM);
    // The run must execute on this Nest-built instance, not on one built some other way.
    const place = jest.spyOn(second.get(ProcurementService), 'place');

    await api2
      .post(`/purchases/${RUN_ID}/approval`)
      .send({ approved: true, by: APPROVER })
      .expect(202, { runId: RUN_ID });
    const done = await until(api2, RUN_ID, (run) => run.status === 'completed');

    expect(done.result).toEqual({
      status: 'ordered',
      requisitionId: 'REQ-0001',
      orderId: 'PO-0001',
      approvedBy: APPROVER,
    });
    expect(steps(done)).toEqual([
      'draft completed',
      'submit completed',
      'signal:approval completed',
      'place completed',
    ]);
    expect(place).toHaveBeenCalledTimes(1);
    // The order went to the ERP Nest created in this app; the recorded steps did not run again.
    expect(erp.orders).toEqual([
      { orderId: 'PO-0001', requisitionId: 'REQ-0001', approvedBy: APPROVER },
    ]);
    expect(erp.requisitions).toEqual([]);
    expect(llm.prompts).toEqual([]);

    await api2
      .post(`/purchases/${RUN_ID}/approval`)
      .send({ approved: true, by: APPROVER })
      .expect(409);
    await api2
      .post('/purchases/po-0000/approval')
      .send({ approved: true, by: APPROVER })
      .expect(404);
    await api2.get('/purchases/po-0000').expect(404);
  });
});
