/**
 * `npm run example:chat -- [--db URL] [--port N]`
 *
 * Serves the chat page at http://127.0.0.1:N/ (default 3000; 0 picks a free port): every
 * conversation is one durable run. Against the scripted model, which streams a word every
 * CHAT_TOKEN_DELAY_MS (default 150). The database is WAYMARK_DATABASE_URL, else `--db`, else
 * `sqlite:./chat.db`; kill the server mid-answer and start it again: the answer continues.
 * CHAT_STREAM_SECRET (32+ characters) signs the pages' stream tokens; without it a restarted
 * server makes new ones, and the page asks for one again.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { container } from 'tsyringe';
import { Waymark } from 'waymark';
import { CHAT_MODEL } from './ChatAgent';
import { createChatServer } from './ChatServer';
import { scriptedChatModel } from './scriptedChatModel';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { db: { type: 'string' }, port: { type: 'string', default: '3000' } },
  });
  const delayMs = Number(process.env.CHAT_TOKEN_DELAY_MS ?? 150);
  container.registerInstance(
    CHAT_MODEL,
    scriptedChatModel(delayMs, (user) => console.log(`[model] answering ${JSON.stringify(user)}`)),
  );
  const secret = process.env.CHAT_STREAM_SECRET;
  const runtime = await Waymark.create({
    database: process.env.WAYMARK_DATABASE_URL ?? values.db ?? 'sqlite:./chat.db',
    ...(secret === undefined ? {} : { streamTokenSecret: secret }),
  });
  // Resumes conversations a stopped server left mid-answer, and wakes those a message reached.
  runtime.startWorker({ pollInterval: '200ms' });
  runtime.installSignalHandlers();
  const server = createChatServer(runtime);
  server.listen(Number(values.port), '127.0.0.1', () => {
    console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
