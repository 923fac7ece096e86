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
