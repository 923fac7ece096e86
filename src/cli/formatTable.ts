import { visibleText } from './Palette';

/**
 * Lays rows out in columns two spaces apart, padded to the widest cell (colour codes do not
 * count). Returns the lines, header first.
 *
 * @example
 * ```ts
 * formatTable(['SEQ', 'STEP'], [['0', 'draft']]); // ['SEQ  STEP', '0    draft']
 * ```
 */
export function formatTable(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string[] {
  const widths = headers.map((header, column) =>
    Math.max(
      visibleText(header).length,
      ...rows.map((row) => visibleText(row[column] ?? '').length),
    ),
  );
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column === cells.length - 1
          ? cell
          : cell + ' '.repeat(widths[column] - visibleText(cell).length),
      )
      .join('  ')
      .trimEnd();
  return [render(headers), ...rows.map(render)];
}
