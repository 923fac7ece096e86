/**
 * Where a fake records each effect it really performs, so a test can count them across
 * crashes and restarts. `EffectLedger` from `waymark/testing` is one.
 */
export interface EffectRecorder {
  /** Records that the effect `key` happened once more. */
  record(key: string, detail?: string): Promise<void>;
}
