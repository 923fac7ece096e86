/** Where a JSON text first goes wrong. */
export interface JsonErrorLocation {
  /** Zero-based offset of the offending character (the text's length at an early end). */
  readonly position: number;
  readonly line: number;
  readonly column: number;
  /** What was found there: `"'}'"` or `'the end of the input'`. */
  readonly found: string;
}

/** Thrown inside the scanner at the first invalid character; never escapes it. */
class Stop extends Error {
  constructor(readonly position: number) {
    super(`invalid JSON at position ${position}`);
  }
}

/**
 * Finds the first character of `text` that makes it invalid JSON (RFC 8259), or returns
 * undefined when it is valid. Node's `JSON.parse` names no position on Node 20, so the CLI
 * scans for it itself to tell the operator where a payload is broken.
 *
 * @example
 * ```ts
 * locateJsonError('{"a": 1,}'); // { position: 8, line: 1, column: 9, found: "'}'" }
 * ```
 */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  try {
    new JsonScanner(text).document();
    return undefined;
  } catch (stop) {
    if (!(stop instanceof Stop)) throw stop;
    const before = text.slice(0, stop.position).split('\n');
    return {
      position: stop.position,
      line: before.length,
      column: before[before.length - 1].length + 1,
      found: stop.position >= text.length ? 'the end of the input' : quote(text[stop.position]),
    };
  }
}

/** A printable character in quotes; a control character escaped, as JSON writes it. */
function quote(c: string): string {
  return c >= ' ' ? `'${c}'` : JSON.stringify(c);
}

class JsonScanner {
  private i = 0;

  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) throw new Stop(this.i);
  }

  private value(): void {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.container('}', () => this.member());
    if (c === '[') return this.container(']', () => this.value());
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const literal of ['true', 'false', 'null']) {
      if (c === literal[0]) return this.literal(literal);
    }
    throw new Stop(this.i);
  }

  private container(close: string, item: () => void): void {
    this.i++;
    this.space();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      item();
      this.space();
      const c = this.text[this.i];
      this.i++;
      if (c === close) return;
      if (c !== ',') throw new Stop(this.i - 1);
    }
  }

  private member(): void {
    this.space();
    if (this.text[this.i] !== '"') throw new Stop(this.i);
    this.string();
    this.space();
    if (this.text[this.i] !== ':') throw new Stop(this.i);
    this.i++;
    this.value();
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined || c < ' ') throw new Stop(this.i);
      this.i++;
      if (c === '"') return;
      if (c !== '\\') continue;
      const escape = this.text[this.i];
      if (escape === 'u') {
        for (let k = 1; k <= 4; k++) {
          if (!/[0-9a-fA-F]/.test(this.text[this.i + k] ?? '')) throw new Stop(this.i + k);
        }
        this.i += 5;
      } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
        this.i++;
      } else {
        throw new Stop(this.i);
      }
    }
  }

  private number(): void {
    if (this.text[this.i] === '-') this.i++;
    if (this.text[this.i] === '0') this.i++;
    else this.digits();
    if (this.text[this.i] === '.') {
      this.i++;
      this.digits();
    }
    if (this.text[this.i] === 'e' || this.text[this.i] === 'E') {
      this.i++;
      if (this.text[this.i] === '+' || this.text[this.i] === '-') this.i++;
      this.digits();
    }
  }

  private digits(): void {
    const start = this.i;
    while (/[0-9]/.test(this.text[this.i] ?? '')) this.i++;
    if (this.i === start) throw new Stop(this.i);
  }

  private literal(word: string): void {
    for (const expected of word) {
      if (this.text[this.i] !== expected) throw new Stop(this.i);
      this.i++;
    }
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i])) this.i++;
  }
}
