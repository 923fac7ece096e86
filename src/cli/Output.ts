import { palette, type Palette } from './Palette';

/** A stream the CLI writes to. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * Where commands write: results on stdout, errors and warnings on stderr, each coloured
 * only when it is a terminal (and `NO_COLOR` is not set).
 *
 * @example
 * ```ts
 * const output = new Output(process.stdout, process.stderr, process.env);
 * output.line(output.paint.green('done'));
 * ```
 */
export class Output {
  /** Colours for stdout. */
  readonly paint: Palette;
  private readonly errorPaint: Palette;

  constructor(
    private readonly stdout: OutputStream,
    private readonly stderr: OutputStream,
    env: NodeJS.ProcessEnv = {},
  ) {
    const allowed = env.NO_COLOR === undefined || env.NO_COLOR === '';
    this.paint = palette(allowed && stdout.isTTY === true);
    this.errorPaint = palette(allowed && stderr.isTTY === true);
  }

  /** One line of a command's result. */
  line(text = ''): void {
    this.stdout.write(`${text}\n`);
  }

  /** A value for scripts: one JSON document. */
  json(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A failure, on stderr. */
  error(message: string): void {
    this.stderr.write(`${this.errorPaint.red('error:')} ${message}\n`);
  }

  /** Something the operator should know that is not the result, on stderr. */
  warn(message: string): void {
    this.stderr.write(`${this.errorPaint.yellow('warning:')} ${message}\n`);
  }
}
