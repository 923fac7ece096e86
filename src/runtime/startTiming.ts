import { timeOf, type RunTiming, type DateOrDuration } from './execution/RunTiming';

/** The time options of one start. */
export interface TimeOptions {
  at?: DateOrDuration;
  deadline?: DateOrDuration;
  startBy?: DateOrDuration;
}

/** The absolute times `start()`'s options name; a bad one throws naming it. */
export function timingOf(options: TimeOptions, now: number): RunTiming {
  return {
    wakeAt: timeOf(options.at, now, 'start(): at'),
    deadlineAt: timeOf(options.deadline, now, 'start(): deadline'),
    startBy: timeOf(options.startBy, now, 'start(): startBy'),
  };
}
