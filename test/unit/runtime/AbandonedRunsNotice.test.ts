import { AbandonedRunsNotice } from '../../../src/runtime/AbandonedRunsNotice';
import { RecordingLogger } from '../../support/RecordingLogger';

const DELAY_MS = 5_000;

/** A notice with its own "once per process" gate, as a fresh process has. */
function freshNotice(claimPrint = onceGate()): {
  notice: AbandonedRunsNotice;
  log: RecordingLogger;
} {
  const log = new RecordingLogger([/^\d+ run\(s\) were left running/]);
  return { notice: new AbandonedRunsNotice({ logger: log, delayMs: DELAY_MS, claimPrint }), log };
}

function onceGate(): () => boolean {
  let printed = false;
  return () => !printed && (printed = true);
}

describe('AbandonedRunsNotice', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is printed only after the delay, naming the runs', () => {
    const { notice, log } = freshNotice();
    notice.defer(['a', 'b']);
    jest.advanceTimersByTime(DELAY_MS - 1);
    expect(log.abandoned()).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(log.abandoned()).toEqual([{ count: 2, ids: ['a', 'b'] }]);
  });

  it('drops a run this runtime resumed meanwhile', () => {
    const { notice, log } = freshNotice();
    notice.defer(['a', 'b']);
    notice.resumed('a');
    jest.advanceTimersByTime(DELAY_MS);
    expect(log.abandoned()).toEqual([{ count: 1, ids: ['b'] }]);
  });

  it('says nothing when every run was resumed here', () => {
    const { notice, log } = freshNotice();
    notice.defer(['a']);
    notice.resumed('a');
    jest.advanceTimersByTime(DELAY_MS);
    notice.flush();
    expect(log.warnings()).toEqual([]);
  });

  it('is cancelled by a worker or recover(), which resume them all', () => {
    const { notice, log } = freshNotice();
    notice.defer(['a', 'b', 'c', 'd']);
    notice.cancel();
    jest.advanceTimersByTime(DELAY_MS);
    notice.flush();
    expect(log.warnings()).toEqual([]);
  });

  it('is printed at once on flush (the runtime closes), and not again when the delay passes', () => {
    const { notice, log } = freshNotice();
    notice.defer(['a', 'b', 'c', 'd']);
    notice.flush();
    expect(log.warnings()).toEqual([
      '4 run(s) were left running by processes on this host that stopped ("a", "b", "c" and 1 more); ' +
        'calling a workflow with an id resumes its run at once; runtime.startWorker() or runtime.recover() resumes them all',
    ]);
    jest.advanceTimersByTime(DELAY_MS);
    expect(log.warnings()).toHaveLength(1);
  });

  it('is printed at most once per process, whichever runtime prints it', () => {
    const gate = onceGate();
    const first = freshNotice(gate);
    const second = freshNotice(gate);
    first.notice.defer(['a']);
    second.notice.defer(['b']);
    jest.advanceTimersByTime(DELAY_MS);
    expect([...first.log.abandoned(), ...second.log.abandoned()]).toEqual([
      { count: 1, ids: ['a'] },
    ]);
  });
});
