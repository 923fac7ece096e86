import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * A tool's answer: `value` as JSON text for the model to read, and as `structuredContent`
 * (dates as ISO strings) for a program. `isError` marks an answer that reports a failure.
 */
export function jsonResult(value: Record<string, unknown>, isError = false): CallToolResult {
  const text = JSON.stringify(value);
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
    ...(isError ? { isError } : {}),
  };
}
