/** The codes Node gives a module it cannot find: `require()`'s, and `import()`'s. */
const MODULE_NOT_FOUND_CODES: readonly unknown[] = ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'];

/**
 * True when `error` is Node's (or jest's) "Cannot find module" error: a package that is not
 * installed, or a file missing from a deployment.
 */
export function isModuleNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  try {
    return MODULE_NOT_FOUND_CODES.includes((error as { code?: unknown }).code);
  } catch {
    return false;
  }
}
