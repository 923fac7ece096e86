/** A stream of a run, as the console lists it. */
export interface StreamSummary {
  readonly name: string;
  readonly length: number;
  readonly closed: boolean;
}
