type Paint = (text: string) => string;

/** ANSI colours, or none: every function returns its text unchanged when colour is off. */
export interface Palette {
  readonly red: Paint;
  readonly green: Paint;
  readonly yellow: Paint;
  readonly cyan: Paint;
  readonly dim: Paint;
  readonly bold: Paint;
}

const ansi =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;
const plain: Paint = (text) => text;

/**
 * A palette that colours only when `enabled` (the stream is a TTY and `NO_COLOR` is unset).
 *
 * @example
 * ```ts
 * const paint = palette(process.stdout.isTTY === true);
 * console.log(paint.red('failed'));
 * ```
 */
export function palette(enabled: boolean): Palette {
  if (!enabled) {
    return { red: plain, green: plain, yellow: plain, cyan: plain, dim: plain, bold: plain };
  }
  return {
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    cyan: ansi(36, 39),
    dim: ansi(2, 22),
    bold: ansi(1, 22),
  };
}

/** A run or step status in the colour an operator scans for. */
export function paintStatus(paint: Palette, status: string): string {
  switch (status) {
    case 'completed':
      return paint.green(status);
    case 'failed':
      return paint.red(status);
    case 'needs_attention':
    case 'parked':
      return paint.bold(paint.yellow(status));
    case 'waiting':
    case 'retrying':
      return paint.cyan(status);
    case 'cancelled':
    case 'pending':
      return paint.dim(status);
    default:
      return status;
  }
}
