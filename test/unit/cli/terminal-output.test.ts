import { formatTable, TableLayout } from '../../../src/cli/formatTable';
import { Output, type OutputStream } from '../../../src/cli/Output';
import { ShownRunPrinter } from '../../../src/cli/ShownRunPrinter';
import { terminalSafe } from '../../../src/cli/terminalSafe';
import type { RunSummary } from '../../../src/model/RunRecords';

const CLEAR = '\u001b[2J';
const TITLE = '\u001b]0;you have been pwned\u0007';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const C1_CSI = '\u009b31m';
const HOSTILE = `boom ${CLEAR}${TITLE}${CLIPBOARD}${C1_CSI}\u202eevil`;

/** What a terminal would act on: any C0 or C1 control other than a line break, or DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

/** The text without waymark's own colour codes (SGR sequences). */
// eslint-disable-next-line no-control-regex
const uncoloured = (text: string): string => text.split(/\u001b\[\d+m/).join('');

class Captured implements OutputStream {
  text = '';
  constructor(readonly isTTY: boolean) {}
  write(text: string): boolean {
    this.text += text;
    return true;
  }
}

const run: RunSummary = {
  runId: `po-1${CLEAR}`,
  workflow: `checkout${TITLE}`,
  version: null,
  status: 'failed',
  owner: null,
  parentRunId: null,
  wakeAt: null,
  parkedSeq: null,
  parkedReason: null,
  waitingFor: null,
  forkedFrom: null,
  forkedSeq: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

describe('terminalSafe', () => {
  it('shows ESC sequences, OSC titles, OSC 52 clipboard writes and C1 controls as escapes', () => {
    expect(terminalSafe(HOSTILE)).toBe(
      'boom \\x1b[2J\\x1b]0;you have been pwned\\x07\\x1b]52;c;cm0gLXJmIH4K\\x07\\x9b31m\\u202eevil',
    );
    expect(terminalSafe('a\nb\tc\u007f')).toBe('a\\nb\\tc\\x7f');
    expect(terminalSafe('a\nb', { keepNewlines: true })).toBe('a\nb');
    expect(terminalSafe('plain — ünïcode 😀')).toBe('plain — ünïcode 😀');
  });

  /** Each range shown escaped, as `[first, last]` code points. */
  const ESCAPED: ReadonlyArray<readonly [string, number, number]> = [
    ['C0 controls', 0x00, 0x1f],
    ['DEL and C1 controls', 0x7f, 0x9f],
    ['the soft hyphen', 0xad, 0xad],
    ['the Arabic number signs', 0x600, 0x605],
    ['the Arabic letter mark', 0x61c, 0x61c],
    ['the Mongolian vowel separator', 0x180e, 0x180e],
    ['zero-width space, joiners and the LRM and RLM marks', 0x200b, 0x200f],
    ['the line and paragraph separators', 0x2028, 0x2029],
    ['the bidi embeddings and overrides', 0x202a, 0x202e],
    ['the word joiner and invisible operators', 0x2060, 0x2064],
    ['the bidi isolates and deprecated format controls', 0x2066, 0x206f],
    ['the byte-order mark (zero-width no-break space)', 0xfeff, 0xfeff],
    ['the interlinear annotation controls', 0xfff9, 0xfffb],
    ['the Hangul fillers', 0x115f, 0x1160],
    ['the Hangul fillers', 0x3164, 0x3164],
    ['the Hangul fillers', 0xffa0, 0xffa0],
    ['the tag characters', 0xe0001, 0xe0001],
    ['the tag characters', 0xe0020, 0xe007f],
  ];

  it.each(ESCAPED)('shows %s as escapes', (_name, first, last) => {
    for (let code = first; code <= last; code++) {
      const char = String.fromCodePoint(code);
      const shown = terminalSafe(`a${char}b`);
      expect(shown).not.toContain(char);
      expect(shown).toMatch(/^a\\(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{5}\}|[nrt])b$/);
    }
  });

  it('shows the Trojan Source file name as its escape, not reversed', () => {
    expect(terminalSafe('invoice_2026\u202efdp.exe')).toBe('invoice_2026\\u202efdp.exe');
    expect(terminalSafe('\u2067evil\u2069\u200b\ufeff\u2060')).toBe(
      '\\u2067evil\\u2069\\u200b\\ufeff\\u2060',
    );
    expect(terminalSafe('\u{e0069}\u{e0067}')).toBe('\\u{e0069}\\u{e0067}');
  });

  it('leaves right-to-left letters, CJK and emoji, joined ones and flags included, unchanged', () => {
    const text =
      'مرحبا שלום 中文 한국어 😀 👍🏽 ❤️ ' +
      '\u{1f469}\u200d\u{1f4bb} \u{1f3f3}\ufe0f\u200d\u{1f308} \u{1f468}\u{1f3fd}\u200d\u{1f9b0} ' +
      '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}';
    expect(terminalSafe(text)).toBe(text);
  });

  it('escapes a joiner between letters and tags that hide a message behind a flag', () => {
    expect(terminalSafe('pay\u200dpal \u{1f600}\u200d')).toBe('pay\\u200dpal \u{1f600}\\u200d');
    const hidden =
      '\u{1f3f4}' +
      [...'ignoreall'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('') +
      '\u{e007f}';
    expect(terminalSafe(hidden)).toBe(
      '\u{1f3f4}\\u{e0069}\\u{e0067}\\u{e006e}\\u{e006f}\\u{e0072}\\u{e0065}\\u{e0061}\\u{e006c}\\u{e006c}\\u{e007f}',
    );
  });
});

describe('the table formatter', () => {
  it('escapes every cell and colours it after, measuring what the terminal shows', () => {
    const red = (text: string): string => `\u001b[31m${text}\u001b[39m`;
    const lines = formatTable(
      ['RUN', { text: 'STATUS', paint: red }],
      [
        [`a${CLEAR}`, { text: `failed${TITLE}`, paint: red }],
        ['b', ['#1 ', { text: 'parked', paint: red }]],
      ],
    );
    expect(lines).toEqual([
      `RUN       ${red('STATUS')}`,
      `a\\x1b[2J  ${red('failed\\x1b]0;you have been pwned\\x07')}`,
      `b         #1 ${red('parked')}`,
    ]);
  });

  it('lays out 200,000 rows (it used to overflow the stack at 150,000)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [String(i), 'step']);
    const lines = formatTable(['SEQ', 'STEP'], rows);
    expect(lines).toHaveLength(200_001);
    expect(lines[200_000]).toBe('199999  step');
  });

  it('widens columns page by page, never narrows them', () => {
    const table = new TableLayout(['SEQ', 'STEP']);
    expect(table.lines([['1', 'a']], { header: true })).toEqual(['SEQ  STEP', '1    a']);
    expect(table.lines([['10000', 'b']])).toEqual(['10000  b']);
    expect(table.lines([['2', 'c']])).toEqual(['2      c']);
  });
});

describe('Output', () => {
  it('escapes error and warning messages, and keeps JSON free of raw C1 and bidi controls', () => {
    const stdout = new Captured(false);
    const stderr = new Captured(true);
    const output = new Output(stdout, stderr, {});
    output.error(`no run with id "${HOSTILE}"`);
    output.warn(HOSTILE);
    output.json({ message: HOSTILE });
    expect(uncoloured(stderr.text)).not.toMatch(CONTROL);
    expect(stderr.text).toContain('\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(stdout.text).not.toMatch(CONTROL);
    expect(JSON.parse(stdout.text)).toEqual({ message: HOSTILE });
  });

  it('keeps JSON free of raw zero-width and other format characters, emoji whole', () => {
    const value = {
      message: 'a\u200bb\ufeff\u2060\u00ad\u{e0041}\u202e',
      emoji: '\u{1f469}\u200d\u{1f4bb} مرحبا',
    };
    const text = Output.jsonText(value, 2);
    expect(text).toContain('"a\\u200bb\\ufeff\\u2060\\u00ad\\udb40\\udc41\\u202e"');
    expect(text).toContain('"\u{1f469}\u200d\u{1f4bb} مرحبا"');
    expect(text.replace('\u200d', '')).not.toMatch(
      /[\u00ad\u200b-\u200f\u202a-\u202e\u2060\ufeff]/u,
    );
    expect(JSON.parse(text)).toEqual(value);
  });

  it('stops writing quietly once the reader of stdout has gone (EPIPE)', () => {
    let onError: ((error: NodeJS.ErrnoException) => void) | undefined;
    const stdout = Object.assign(new Captured(false), {
      on: (_: 'error', listener: (error: NodeJS.ErrnoException) => void) => (onError = listener),
    });
    const output = new Output(stdout, new Captured(false), {});
    output.line('first');
    onError!(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    output.line('second');
    expect(output.closed).toBe(true);
    expect(stdout.text).toBe('first\n');
    expect(() => onError!(Object.assign(new Error('EIO'), { code: 'EIO' }))).toThrow('EIO');
  });
});

describe('waymark show, printed on a colour terminal', () => {
  it('lets only its own colour codes through', () => {
    const stdout = new Captured(true);
    const printer = new ShownRunPrinter(new Output(stdout, new Captured(true), {}));
    printer.begin(run, `signal "${TITLE}"`, null);
    printer.steps([
      {
        seq: 0,
        name: `charge${CLIPBOARD}`,
        status: 'failed',
        attempts: 1,
        startedAt: new Date(0),
        finishedAt: new Date(5),
        durationMs: 5,
        error: { name: 'Error', message: HOSTILE },
        idempotencyKey: `${run.runId}:0`,
      },
    ]);
    printer.end();
    const withoutColours = uncoloured(stdout.text);
    expect(withoutColours).not.toMatch(CONTROL);
    expect(withoutColours).toContain('po-1\\x1b[2J');
    expect(withoutColours).toContain('charge\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(withoutColours).toContain('Error: boom \\x1b[2J');
  });
});
