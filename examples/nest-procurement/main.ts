/**
 * Serves the procurement API until SIGTERM or Ctrl-C, on which Nest's shutdown hooks close
 * waymark: it stops claiming runs, lets steps in flight finish, and hands its runs over.
 *
 * `node -r @swc-node/register examples/nest-procurement/main.ts`
 * (database: `WAYMARK_DATABASE_URL`, default `sqlite:./nest-procurement.db`; port: `PORT`,
 * default 3000, `0` for any free one)
 *
 * @module
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './AppModule';

async function main(): Promise<void> {
  const database = process.env.WAYMARK_DATABASE_URL ?? 'sqlite:./nest-procurement.db';
  const app = await NestFactory.create(AppModule.forRoot({ database }), {
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  console.log(`listening on ${await app.getUrl()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
