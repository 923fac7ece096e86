/**
 * A short description of a stored node for an error message: never the whole node, which
 * may be large or nested too deeply to print.
 */
export function describeNode(node: unknown): string {
  if (typeof node === 'string') {
    return JSON.stringify(node.length > 60 ? `${node.slice(0, 60)}…` : node);
  }
  if (Array.isArray(node)) return `an array of ${node.length}`;
  if (node === undefined) return 'nothing';
  if (node === null) return 'null';
  return typeof node === 'object' ? 'an object' : (JSON.stringify(node) ?? typeof node);
}

/** What an exception says, read defensively (its own `name` may be the getter that threw). */
export function describeThrown(error: unknown): string {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return 'an exception that cannot be described';
  }
}
