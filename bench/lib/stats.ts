export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
export const min = (xs: number[]): number => Math.min(...xs);
export const max = (xs: number[]): number => Math.max(...xs);

/** `123 (110–140)`: median with the range, all already in the unit wanted. */
export const withRange = (xs: number[], digits = 0): string =>
  xs.length === 0
    ? '–'
    : xs.length === 1
      ? xs[0].toFixed(digits)
      : `${median(xs).toFixed(digits)} (${min(xs).toFixed(digits)}–${max(xs).toFixed(digits)})`;

export const ratio = (a: number, b: number): string =>
  Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(2)}×` : '–';
