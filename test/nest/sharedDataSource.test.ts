import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { Step, Waymark, Workflow, WorkflowContext, WaymarkRuntime } from 'waymark';
import { WaymarkModule } from 'waymark/nest';
import { createTestDatabase, type TestDatabase } from '../support/databases';

@Entity('nest_orders')
class OrderRow {
  @PrimaryColumn('varchar')
  id!: string;

  @Column('integer')
  total!: number;
}

@Injectable()
class Checkout {
  static release: () => void = () => undefined;
  static entered: Promise<void>;
  static enter: () => void = () => undefined;

  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'nest-checkout', id: (id: string) => `checkout-${id}` })
  async checkout(id: string, hold = false): Promise<string> {
    await this.record(id);
    if (hold) await this.hold();
    return id;
  }

  /** Commits the order row and its checkpoint in one transaction of the app's DataSource. */
  @Step({ transactional: true })
  async record(id: string): Promise<void> {
    await this.ctx.entityManager.insert(OrderRow, { id, total: 42 });
  }

  @Step()
  async hold(): Promise<void> {
    Checkout.enter();
    await new Promise<void>((resolve) => (Checkout.release = resolve));
  }
}

/** Stands for `TypeOrmModule.forRoot()`: provides the DataSource, destroys it on shutdown. */
function databaseModule(file: string) {
  @Injectable()
  class DataSourceCloser implements OnApplicationShutdown {
    constructor(private readonly dataSource: DataSource) {}

    async onApplicationShutdown(): Promise<void> {
      await this.dataSource.destroy();
    }
  }

  @Module({
    providers: [
      {
        provide: DataSource,
        useFactory: () =>
          new DataSource({
            type: 'better-sqlite3',
            database: file,
            entities: [OrderRow],
            synchronize: true,
          }).initialize(),
      },
      DataSourceCloser,
    ],
    exports: [DataSource],
  })
  class DatabaseModule {}
  return DatabaseModule;
}

describe('WaymarkModule on the application DataSource', () => {
  let db: TestDatabase;
  let file: string;

  beforeEach(async () => {
    db = await createTestDatabase('sqlite-file');
    file = db.url.slice('sqlite:'.length);
  });

  afterEach(async () => {
    Checkout.release();
    await db.drop();
  });

  async function open(): Promise<TestingModule> {
    const DatabaseModule = databaseModule(file);
    const app = await Test.createTestingModule({
      imports: [
        DatabaseModule,
        WaymarkModule.forRootAsync({
          imports: [DatabaseModule],
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => ({
            database: dataSource,
            worker: false,
            shutdownGrace: '50ms',
          }),
        }),
      ],
      providers: [Checkout],
    }).compile();
    return app.init();
  }

  it('commits a transactional step with the application rows, in its DataSource', async () => {
    const app = await open();
    try {
      const runtime = app.get(WaymarkRuntime);
      const dataSource = app.get(DataSource);
      expect(runtime.dataSource).toBe(dataSource);
      await expect(runtime.run(Checkout, 'checkout', ['o-1'])).resolves.toBe('o-1');
      await expect(dataSource.getRepository(OrderRow).findOneBy({ id: 'o-1' })).resolves.toEqual({
        id: 'o-1',
        total: 42,
      });
    } finally {
      await app.close();
    }
  });

  it('hands runs over before the application destroys its DataSource on shutdown', async () => {
    const app = await open();
    const dataSource = app.get(DataSource);
    Checkout.entered = new Promise((resolve) => (Checkout.enter = resolve));
    await app.get(WaymarkRuntime).start(Checkout, 'checkout', ['o-2', true]);
    await Checkout.entered;

    await app.close();
    expect(dataSource.isInitialized).toBe(false);
    // The run was released in the DataSource before it closed: another process takes it now.
    const reopened = new DataSource({ type: 'better-sqlite3', database: file });
    const observer = await Waymark.create({ database: reopened });
    try {
      const run = await observer.handle('checkout-o-2').describe();
      expect({ status: run.status, owner: run.owner }).toEqual({ status: 'pending', owner: null });
    } finally {
      await observer.close();
      await reopened.destroy();
    }
  });
});
