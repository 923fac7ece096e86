import type { Attributes } from '@opentelemetry/api';
import type { StepInfo } from '../model/StepInfo';

/** The attributes of a step attempt's span: run id, step, seq, attempt (and kind, when known). */
export function stepAttributes(
  step: Pick<StepInfo, 'runId' | 'step' | 'seq' | 'attempt'> & Partial<Pick<StepInfo, 'kind'>>,
): Attributes {
  const attributes: Attributes = {
    'waymark.run_id': step.runId,
    'waymark.seq': step.seq,
    'waymark.step': step.step,
    'waymark.attempt': step.attempt,
  };
  if (step.kind !== undefined) attributes['waymark.kind'] = step.kind;
  return attributes;
}
