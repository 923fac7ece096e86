import { Controller, Get, Injectable, Param, Post, UseFilters, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import {
  NonDeterminismError,
  StoreUnavailableError,
  Step,
  Workflow,
  WaymarkRuntime,
} from 'waymark';
import { WaymarkExceptionFilter, WaymarkModule } from 'waymark/nest';

@Injectable()
class Orders {
  @Workflow({ name: 'nest-filter-order', id: (id: string) => `order-${id}` })
  async place(id: string, amount: number): Promise<string> {
    return this.book(id, amount);
  }

  @Step()
  async book(id: string, amount: number): Promise<string> {
    return `${id}:${amount}`;
  }
}

@Controller()
class OrdersController {
  constructor(private readonly runtime: WaymarkRuntime) {}

  @Post('orders/:id/:amount')
  async place(@Param('id') id: string, @Param('amount') amount: string): Promise<string> {
    return this.runtime.run(Orders, 'place', [id, Number(amount)]);
  }

  @Get('runs/:id')
  async show(@Param('id') id: string): Promise<unknown> {
    return this.runtime.handle(id).describe();
  }

  @Post('runs/:id/approval')
  async approve(@Param('id') id: string): Promise<void> {
    await this.runtime.signal(id, 'approval', { approved: true });
  }

  @Post('runs/:id/cancel')
  async cancel(@Param('id') id: string): Promise<void> {
    await this.runtime.cancel(id);
  }

  @Get('down')
  down(): never {
    throw new StoreUnavailableError(
      'read run "x"',
      new Error('connect ECONNREFUSED 10.0.0.7:5432'),
    );
  }

  @Get('diverged')
  diverged(): never {
    throw new NonDeterminismError('order-1', 0, 'book', 'charge');
  }

  @Get('bug')
  bug(): never {
    throw new TypeError('a bug');
  }
}

/** The same routes, with the filter on the controller instead of the module. */
@Controller('filtered')
@UseFilters(WaymarkExceptionFilter)
class FilteredController extends OrdersController {}

/** `exceptionFilter` undefined: the module's default. */
async function appWith(exceptionFilter: boolean | undefined, controller: Type = OrdersController) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      WaymarkModule.forRoot({
        database: 'sqlite::memory:',
        worker: false,
        ...(exceptionFilter === undefined ? {} : { exceptionFilter }),
      }),
    ],
    controllers: [controller],
    providers: [Orders],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('WaymarkExceptionFilter', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await appWith(undefined);
    await request(app.getHttpServer()).post('/orders/1/10').expect(201);
  });
  afterAll(() => app?.close());

  it('answers an unknown run with 404 and waymark’s error code', async () => {
    const answer = await request(app.getHttpServer()).get('/runs/order-404').expect(404);
    expect(answer.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      code: 'RUN_NOT_FOUND',
      message: 'no run with id "order-404"',
    });
  });

  it('answers 409 to a run id taken by other arguments and to an action on an ended run', async () => {
    const conflict = await request(app.getHttpServer()).post('/orders/1/99').expect(409);
    expect(conflict.body).toMatchObject({ code: 'RUN_CONFLICT', error: 'Conflict' });
    const signal = await request(app.getHttpServer()).post('/runs/order-1/approval').expect(409);
    expect(signal.body).toMatchObject({ code: 'RUN_FINISHED' });
    const cancel = await request(app.getHttpServer()).post('/runs/order-1/cancel').expect(409);
    expect(cancel.body).toMatchObject({ code: 'INVALID_RUN_STATE' });
  });

  it('answers bad input with 400, naming what was wrong', async () => {
    const answer = await request(app.getHttpServer()).get('/runs/order%00x').expect(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_ARGUMENT', error: 'Bad Request' });
    expect(answer.body.message).toContain('must not contain the NUL character');
  });

  it('answers 503 to an unavailable database without sending its details', async () => {
    const answer = await request(app.getHttpServer()).get('/down').expect(503);
    expect(answer.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'STORE_UNAVAILABLE',
      message: 'Service Unavailable: try again later',
    });
  });

  it('leaves other errors, waymark’s or not, to Nest (500)', async () => {
    await request(app.getHttpServer()).get('/diverged').expect(500);
    await request(app.getHttpServer()).get('/bug').expect(500);
  });

  it('is on by default, and off with exceptionFilter: false (an unknown run is then a 500)', async () => {
    const plain = await appWith(false);
    try {
      await request(plain.getHttpServer()).get('/runs/order-404').expect(500);
    } finally {
      await plain.close();
    }
  });

  it('is on by default with forRootAsync too', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        WaymarkModule.forRootAsync({
          useFactory: () => ({ database: 'sqlite::memory:', worker: false }),
        }),
      ],
      controllers: [OrdersController],
      providers: [Orders],
    }).compile();
    const built = moduleRef.createNestApplication({ logger: false });
    await built.init();
    try {
      await request(built.getHttpServer()).get('/runs/order-404').expect(404);
    } finally {
      await built.close();
    }
  });

  it('works on one controller with @UseFilters', async () => {
    const filtered = await appWith(false, FilteredController);
    try {
      await request(filtered.getHttpServer()).get('/filtered/runs/order-404').expect(404);
    } finally {
      await filtered.close();
    }
  });
});
