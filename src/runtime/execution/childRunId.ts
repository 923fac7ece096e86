import { createHash } from 'node:crypto';
import { MAX_RUN_ID_LENGTH } from '../../model/identifiers';

/**
 * The id of a parent's child run started at `seq`: `${parent}/${seq}`. A parent whose id
 * leaves no room for the suffix gets a shortened prefix with a hash of the whole id, so the
 * child's id stays within {@link MAX_RUN_ID_LENGTH} and is the same on every resume.
 */
export function childRunId(parentRunId: string, seq: number): string {
  const suffix = `/${seq}`;
  const id = parentRunId + suffix;
  if (id.length <= MAX_RUN_ID_LENGTH) return id;
  const hash = createHash('sha256').update(parentRunId).digest('hex').slice(0, 16);
  let prefix = parentRunId.slice(0, MAX_RUN_ID_LENGTH - suffix.length - hash.length - 1);
  // Never cut a surrogate pair in two: the id must stay well-formed Unicode.
  if (/[\uD800-\uDBFF]$/.test(prefix)) prefix = prefix.slice(0, -1);
  return `${prefix}~${hash}${suffix}`;
}
