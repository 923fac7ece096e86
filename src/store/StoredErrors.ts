import { cutText, errorNameChars, type ErrorSummary } from '../model/ErrorSummary';
import type { ValueCut } from './rows';

/** Reads a stored value back (the codec's `decode`, given by the runtime). */
export type DecodeValue = (text: string, path: string) => unknown;

/**
 * What people and tools see of a stored error: its name, message and string code, from
 * the members the database read cut (see `errorFieldsSql`), else decoded whole.
 */
export class StoredErrors {
  constructor(private readonly decode: DecodeValue) {}

  /** A stored error: from its members read cut (see `errorFieldsSql`), else decoded whole. */
  errorOf(
    output: string | null,
    cut: ValueCut | undefined,
    errorChars: number,
    path: string,
  ): ErrorSummary {
    const fields = cut?.error;
    if (!fields || output === null) return this.decoded(output, path);
    const { name, message, code } = fields;
    const nameChars = errorNameChars(errorChars);
    return {
      name: name ? cutText(name.text, name.length, nameChars) : 'Error',
      // A thrown value that is no error reads as its JSON, as a decoded one does.
      message: message
        ? cutText(message.text, message.length, errorChars)
        : cutText(output, cut.length, errorChars),
      ...(code ? { code: cutText(code.text, code.length, nameChars) } : {}),
    };
  }

  private decoded(output: string | null, path: string): ErrorSummary {
    try {
      const error = this.decode(output ?? '', path) as {
        name?: unknown;
        message?: unknown;
        code?: unknown;
      };
      return {
        name: typeof error?.name === 'string' ? error.name : 'Error',
        message: typeof error?.message === 'string' ? error.message : JSON.stringify(error),
        ...(typeof error?.code === 'string' ? { code: error.code } : {}),
      };
    } catch (reason) {
      return { name: 'CorruptValueError', message: (reason as Error).message };
    }
  }
}
