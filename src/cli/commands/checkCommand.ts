import type { Command } from 'commander';
import { WorkflowCatalog, type AnyClass } from '../../runtime/WorkflowCatalog';
import { formatDuration } from '../../ground/Duration';
import { DATABASE_URL_VARIABLE, databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';
import { terminalSafe } from '../terminalSafe';
import { CliError, isCliError } from '../CliError';
import { firstLine, messageOf } from '../describeFailure';
import { describeExecution, describeIdempotency, describeRetry } from '../describePolicies';
import { ExitCode } from '../ExitCode';
import { formatTable } from '../formatTable';
import { NONE } from '../formatTime';
import { loadModule } from '../loadModule';
import { plural } from '../plural';

/**
 * `waymark check <module...>`: loads the modules, finds every class with waymark decorators,
 * validates every policy, and prints the workflows and steps it found. Every problem — a
 * decorator that threw while the module loaded, a combination of policies that cannot work —
 * is listed, and the exit code is 1.
 *
 * @example
 * ```sh
 * waymark check dist/workflows.js
 * ```
 */
export function registerCheckCommand(program: Command, cli: CliContext): void {
  program
    .command('check')
    .description('load workflow modules and validate every decorator policy')
    .argument('<modules...>', 'modules declaring workflows (.js, or .ts with @swc-node/register)')
    .action(async (modules: string[], _options: unknown, command: Command) => {
      const problems: string[] = [];
      for (const module of modules) {
        try {
          loadModule(module);
        } catch (error) {
          const message = firstLine(messageOf(error));
          problems.push(isCliError(error) ? message : `${module}: ${message}`);
        }
      }
      const classes = WorkflowCatalog.classes();
      for (const Class of classes) {
        try {
          WorkflowCatalog.validate(Class);
        } catch (error) {
          problems.push(...splitProblems(messageOf(error)));
        }
      }
      printPolicies(cli, classes);
      problems.push(...(await unscheduledWorkflows(command, cli)));
      if (classes.length === 0 && problems.length === 0) {
        problems.push(`no @Workflow or @Step found in ${modules.join(', ')}`);
      }
      if (problems.length > 0) {
        for (const problem of problems) cli.output.error(problem);
        throw new CliError(`check found ${plural(problems.length, 'problem')}`, ExitCode.Failed);
      }
      cli.output.line(cli.output.paint.green('no problems found'));
    });
}

function printPolicies(cli: CliContext, classes: readonly AnyClass[]): void {
  const { output } = cli;
  const methods = classes.flatMap((Class) => WorkflowCatalog.policiesOf(Class));
  const workflows = methods.filter((m) => m.workflow);
  const steps = methods.filter((m) => m.step);
  const bold = output.paint.bold;
  output.line(bold(plural(workflows.length, 'workflow')));
  const workflowRows = workflows.map((m) => [
    m.workflow!.name,
    `${m.className}.${m.methodName}`,
    m.workflow!.version ?? NONE,
    m.workflow!.id ? 'from its arguments' : 'random UUID',
  ]);
  const workflowHeaders = ['WORKFLOW', 'METHOD', 'VERSION', 'RUN ID'];
  if (workflows.length > 0) {
    for (const line of formatTable(workflowHeaders, workflowRows)) output.line(line);
  }
  output.line();
  output.line(bold(plural(steps.length, 'step')));
  const stepRows = steps.map((m) => [
    `${m.className}.${m.methodName}`,
    m.step!.name,
    m.step!.timeoutMs === undefined ? NONE : formatDuration(m.step!.timeoutMs),
    describeRetry(m.retry),
    describeIdempotency(m),
    describeExecution(m),
  ]);
  const stepHeaders = ['METHOD', 'STEP', 'TIMEOUT', 'RETRY', 'IDEMPOTENCY KEY', 'EXECUTION'];
  if (steps.length > 0) for (const line of formatTable(stepHeaders, stepRows)) output.line(line);
  output.line();
}

/**
 * With a database (`--db` or `WAYMARK_DATABASE_URL`): each stored schedule whose workflow no
 * loaded module declares — a worker running these modules would never start its runs.
 */
async function unscheduledWorkflows(command: Command, cli: CliContext): Promise<string[]> {
  const { db } = command.optsWithGlobals<{ db?: string }>();
  if ((db ?? cli.env[DATABASE_URL_VARIABLE] ?? '').trim() === '') return [];
  const url = databaseUrlOf(command, cli.env);
  const schedules = await withRuntime(url, cli.output, (runtime) => runtime.schedules());
  const known = new Set(WorkflowCatalog.workflowNames());
  return schedules
    .filter((s) => !known.has(s.workflow))
    .map(
      (s) =>
        `schedule "${terminalSafe(s.name)}" starts workflow "${terminalSafe(s.workflow)}", ` +
        'which no loaded module declares: no worker of these modules would run it',
    );
}

/**
 * `WorkflowCatalog.validate` reports a class's problems in one message, joined with '; '; each
 * starts with the decorator it concerns ("@Retry on Class.method …"), so split there.
 */
function splitProblems(message: string): string[] {
  return message.split(/; (?=@\w+ on )/);
}
