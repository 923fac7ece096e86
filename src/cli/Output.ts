import { SHOWN_TEXT_PATTERN } from '../ground/escapedCharacters';
import { palette, type Palette } from './Palette';
import { terminalSafe } from './terminalSafe';

/** A stream the CLI writes to. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  on?(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * What a terminal may act on or hide (`SHOWN_TEXT_PATTERN`, as `terminalSafe` escapes it).
 * `JSON.stringify` escapes C0 controls inside strings but leaves C1 controls, the bidi
 * controls and the zero-width and other format characters as they are.
 */
const JSON_UNSAFE = new RegExp(SHOWN_TEXT_PATTERN.source, SHOWN_TEXT_PATTERN.flags);

/** The line breaks and tabs of indented JSON: outside strings, where `\uXXXX` is no JSON. */
const JSON_LAYOUT = new Set(['\n', '\r', '\t']);

/** `char` as JSON string escapes, one `\uXXXX` per UTF-16 unit: the JSON means the same. */
function jsonEscape(char: string): string {
  let escaped = '';
  for (let i = 0; i < char.length; i++) {
    escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return escaped;
}

/**
 * Where commands write: results on stdout, errors and warnings on stderr, each coloured
 * only when it is a terminal (and `NO_COLOR` is not set). Error and warning messages are
 * made safe for the terminal ({@link terminalSafe}) here; a command's result lines are made
 * safe by the command, which colours them. A closed stdout (`waymark runs | head -3`) ends
 * output quietly: {@link closed} turns true and later lines are dropped.
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
  private stdoutClosed = false;

  constructor(
    private readonly stdout: OutputStream,
    private readonly stderr: OutputStream,
    env: NodeJS.ProcessEnv = {},
  ) {
    const allowed = env.NO_COLOR === undefined || env.NO_COLOR === '';
    this.paint = palette(allowed && stdout.isTTY === true);
    this.errorPaint = palette(allowed && stderr.isTTY === true);
    stdout.on?.('error', (error) => {
      // The reader went away (`| head`): nobody reads what follows. Anything else is a fault.
      if (error.code !== 'EPIPE') throw error;
      this.stdoutClosed = true;
    });
  }

  /** True once stdout's reader has gone; a command printing page by page can stop. */
  get closed(): boolean {
    return this.stdoutClosed;
  }

  /** One line of a command's result. */
  line(text = ''): void {
    if (!this.stdoutClosed) this.stdout.write(`${text}\n`);
  }

  /** A value for scripts: one JSON document, escaped so no character in it acts on a terminal. */
  json(value: unknown): void {
    this.line(Output.jsonText(value, 2));
  }

  /** `JSON.stringify` whose output is safe to print on a terminal too. */
  static jsonText(value: unknown, indent?: number): string {
    return JSON.stringify(value, null, indent).replace(
      JSON_UNSAFE,
      (match: string, kept: string | undefined) =>
        kept !== undefined || JSON_LAYOUT.has(match) ? match : jsonEscape(match),
    );
  }

  /** A failure, on stderr. */
  error(message: string): void {
    this.stderr.write(
      `${this.errorPaint.red('error:')} ${terminalSafe(message, { keepNewlines: true })}\n`,
    );
  }

  /** Something the operator should know that is not the result, on stderr. */
  warn(message: string): void {
    this.stderr.write(
      `${this.errorPaint.yellow('warning:')} ${terminalSafe(message, { keepNewlines: true })}\n`,
    );
  }
}
