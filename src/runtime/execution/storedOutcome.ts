import type { Codec } from '../../codec/Codec';
import type { RunRow } from '../../store/rows';
import type { RunOutcome } from './RunOutcome';

/**
 * The outcome a stored run records (terminal, parked, or waiting until a time); an error
 * outcome is dated by the row's last write, when the run ended or parked.
 */
export function storedOutcome(codec: Codec, row: RunRow): RunOutcome {
  if (row.status === 'completed') {
    return {
      status: 'completed',
      result: codec.decode(row.result ?? '', `run "${row.id}" result`),
    };
  }
  if (row.status === 'waiting' || row.status === 'pending' || row.status === 'running') {
    return { status: 'waiting', wakeAt: row.wakeAt };
  }
  const error = codec.decode(row.error ?? '', `run "${row.id}" error`);
  return { status: row.status, error, storedAt: row.updatedAt };
}
