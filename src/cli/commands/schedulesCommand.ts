import type { Command } from 'commander';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { CliError } from '../CliError';
import { ExitCode } from '../ExitCode';
import { formatTable } from '../formatTable';
import { withRuntime } from '../openRuntime';
import { plural } from '../plural';
import { terminalSafe } from '../terminalSafe';

/**
 * `waymark schedules [list|pause|resume|delete] [name]`: the stored schedules, and what an
 * operator does to one (a schedule is created in code, with `runtime.schedule()`).
 *
 * @example
 * ```sh
 * waymark schedules
 * waymark schedules pause nightly-report
 * ```
 */
export function registerSchedulesCommand(program: Command, cli: CliContext): void {
  const schedules = program
    .command('schedules')
    .description('list stored schedules; pause, resume or delete one');
  schedules
    .command('list', { isDefault: true })
    .description('list stored schedules and their next tick')
    .option('--json', 'print one JSON array for scripts')
    .action(async (options: { json?: boolean }, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      const list = await withRuntime(url, cli.output, (runtime) => runtime.schedules());
      if (options.json) return cli.output.json(list);
      if (list.length === 0) return cli.output.line('no schedules');
      const rows = list.map((s) => [
        terminalSafe(s.name),
        terminalSafe(s.workflow),
        `${terminalSafe(s.cron)} (${s.timezone})`,
        s.catchUp,
        s.paused ? cli.output.paint.yellow('paused') : 'active',
        s.nextAt.toISOString(),
      ]);
      const headers = ['SCHEDULE', 'WORKFLOW', 'CRON', 'CATCH-UP', 'STATE', 'NEXT TICK'];
      for (const line of formatTable(headers, rows)) cli.output.line(line);
      cli.output.line(plural(list.length, 'schedule'));
    });
  const act = (
    name: string,
    done: string,
    work: (
      runtime: Parameters<Parameters<typeof withRuntime>[2]>[0],
      schedule: string,
    ) => Promise<unknown>,
  ) =>
    schedules
      .command(name)
      .description(`${name} a schedule`)
      .argument('<schedule>', 'the schedule name')
      .action(async (schedule: string, _options: unknown, command: Command) => {
        const url = databaseUrlOf(command, cli.env);
        const found = await withRuntime(url, cli.output, async (runtime) => {
          const names = (await runtime.schedules()).map((s) => s.name);
          if (!names.includes(schedule)) return false;
          await work(runtime, schedule);
          return true;
        });
        if (!found) {
          throw new CliError(`no schedule named "${terminalSafe(schedule)}"`, ExitCode.Failed);
        }
        cli.output.line(`${done} schedule "${terminalSafe(schedule)}"`);
      });
  act('pause', 'paused', (runtime, schedule) => runtime.pauseSchedule(schedule));
  act('resume', 'resumed', (runtime, schedule) => runtime.resumeSchedule(schedule));
  act('delete', 'deleted', (runtime, schedule) => runtime.deleteSchedule(schedule));
}
