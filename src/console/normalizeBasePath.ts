import { ConfigurationError } from '../errors/ConfigurationError';

/**
 * `basePath` without trailing slashes (`''` when not given); one not starting with `/` is a
 * `ConfigurationError` naming `where`.
 */
export function normalizeBasePath(basePath: string | undefined, where: string): string {
  if (basePath === undefined) return '';
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !trimmed.startsWith('/')) {
    throw new ConfigurationError(`${where}: basePath must start with "/", got "${basePath}"`);
  }
  return trimmed;
}
