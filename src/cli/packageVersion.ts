import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * waymark's version, from its package.json (two levels up from `src/cli/` and `dist/cli/`).
 *
 * @example
 * ```ts
 * packageVersion(); // '0.1.0'
 * ```
 */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
