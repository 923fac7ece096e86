import { terminalSafe } from './terminalSafe';

/** Text coloured once it has been made safe, e.g. a status in its colour. */
export interface Painted {
  readonly text: string;
  readonly paint: (safe: string) => string;
}

/**
 * One table cell: text (made safe for the terminal by the formatter, never painted before),
 * painted text, or pieces of both (`#3 draft` and a dimmed status).
 */
export type Cell = string | Painted | ReadonlyArray<string | Painted>;

/** A cell as printed, and the width a terminal shows it in. */
interface Rendered {
  readonly text: string;
  readonly width: number;
}

// `Array.isArray` narrows a readonly array to `any[]`; this keeps the element type.
function isPieces(cell: Cell): cell is ReadonlyArray<string | Painted> {
  return Array.isArray(cell);
}

function render(cell: Cell): Rendered {
  const pieces = isPieces(cell) ? cell : [cell];
  let text = '';
  let width = 0;
  for (const piece of pieces) {
    const safe = terminalSafe(typeof piece === 'string' ? piece : piece.text);
    width += safe.length;
    text += typeof piece === 'string' ? safe : piece.paint(safe);
  }
  return { text, width };
}

/**
 * Lays out table rows in columns two spaces apart, each padded to its column's width.
 * Widths only grow, so rows can be written as they come, page by page (a later, wider cell
 * widens its column from there on). Every cell goes through {@link terminalSafe}.
 *
 * @example
 * ```ts
 * const table = new TableLayout(['SEQ', 'STEP']);
 * for (const line of table.lines([['0', 'draft']], { header: true })) console.log(line);
 * ```
 */
export class TableLayout {
  private readonly widths: number[];
  private readonly header: Rendered[];

  constructor(headers: readonly Cell[]) {
    this.header = headers.map(render);
    this.widths = this.header.map((cell) => cell.width);
  }

  /** The rows as lines (the header line first, with `header`), widening columns to fit. */
  lines(rows: ReadonlyArray<readonly Cell[]>, options: { header?: boolean } = {}): string[] {
    const rendered = rows.map((row) => row.map(render));
    for (const row of rendered) {
      row.forEach((cell, column) => {
        if (cell.width > (this.widths[column] ?? 0)) this.widths[column] = cell.width;
      });
    }
    const lines = rendered.map((row) => this.line(row));
    return options.header ? [this.line(this.header), ...lines] : lines;
  }

  private line(cells: readonly Rendered[]): string {
    return cells
      .map((cell, column) =>
        column === cells.length - 1
          ? cell.text
          : cell.text + ' '.repeat(Math.max(0, (this.widths[column] ?? 0) - cell.width)),
      )
      .join('  ')
      .trimEnd();
  }
}

/**
 * Lays rows out in columns two spaces apart, padded to the widest cell. Returns the lines,
 * header first. Cells are made safe for the terminal ({@link terminalSafe}).
 *
 * @example
 * ```ts
 * formatTable(['SEQ', 'STEP'], [['0', 'draft']]); // ['SEQ  STEP', '0    draft']
 * ```
 */
export function formatTable(
  headers: readonly Cell[],
  rows: ReadonlyArray<readonly Cell[]>,
): string[] {
  return new TableLayout(headers).lines(rows, { header: true });
}
