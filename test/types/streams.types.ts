/**
 * Compile-time contract of streams: every `@ts-expect-error` below must be an error, and
 * everything else must compile. Checked by `tsc` in `npm test`; never run.
 */
import type { StreamEntry, StreamWriter, WaymarkRuntime, WorkflowContext } from 'waymark';

export async function streams(ctx: WorkflowContext, runtime: WaymarkRuntime): Promise<string> {
  const out: StreamWriter<string> = ctx.stream<string>('llm');
  out.write('token');
  // @ts-expect-error a stream of strings takes strings
  out.write(42);
  const attempt: number = out.attempt;
  await out.flush();
  await out.close();

  // The SPEC's shape: `{ offset, chunk }`, with restart markers beside.
  let text = `${attempt}`;
  for await (const { offset, chunk, seq, restart } of runtime.readStream<string>('r', 'llm', {
    from: 3,
  })) {
    if (restart) text += `[step ${restart.step} #${restart.seq} attempt ${restart.attempt}]`;
    else text += `${offset}:${seq}:${chunk.toUpperCase()}`;
  }
  const entries: AsyncIterable<StreamEntry<unknown>> = runtime.readStream('r', 'llm');
  // @ts-expect-error from is an offset
  runtime.readStream('r', 'llm', { from: '3' });
  void entries;
  return text;
}
