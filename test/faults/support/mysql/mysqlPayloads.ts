import type { TransactionStatus } from '../StatementInfo';
import { MAX_PAYLOAD } from './MysqlFramer';

/** Capability flags the proxy reads (client and server both set them to use them). */
export const CLIENT_SSL = 0x0800;
export const CLIENT_QUERY_ATTRIBUTES = 0x08000000;
export const CLIENT_DEPRECATE_EOF = 0x01000000;

/** Status flags of OK and EOF packets. */
const SERVER_STATUS_IN_TRANS = 0x0001;
export const SERVER_MORE_RESULTS_EXISTS = 0x0008;

/** Packet headers. */
export const OK = 0x00;
export const EOF = 0xfe;
export const ERR = 0xff;
export const LOCAL_INFILE = 0xfb;

/** A length-encoded integer at `offset` and where the next field starts. */
export function readLengthEncoded(
  payload: Buffer,
  offset: number,
): { value: number; next: number } {
  const first = payload[offset];
  if (first < 0xfb) return { value: first, next: offset + 1 };
  if (first === 0xfc) return { value: payload.readUInt16LE(offset + 1), next: offset + 3 };
  if (first === 0xfd) return { value: payload.readUIntLE(offset + 1, 3), next: offset + 4 };
  if (first === 0xfe) {
    return { value: Number(payload.readBigUInt64LE(offset + 1)), next: offset + 9 };
  }
  throw new RangeError(`0x${first.toString(16)} at ${offset} is not a length-encoded integer`);
}

/** What an OK packet (header 0x00, or 0xFE ending a result set under DEPRECATE_EOF) says. */
export interface OkPacket {
  readonly affectedRows: number;
  readonly lastInsertId: number;
  readonly serverStatus: number;
}

/** Reads an OK packet's affected rows, last insert id and status flags (protocol 4.1). */
export function parseOk(payload: Buffer): OkPacket {
  const affected = readLengthEncoded(payload, 1);
  const insertId = readLengthEncoded(payload, affected.next);
  return {
    affectedRows: affected.value,
    lastInsertId: insertId.value,
    serverStatus: payload.readUInt16LE(insertId.next),
  };
}

/** The status flags of an EOF packet: header, 2 bytes of warnings, 2 of status. */
export function eofStatus(payload: Buffer): number {
  return payload.readUInt16LE(3);
}

/** Whether a 0xFE packet ends a result set rather than being a row that starts with 0xFE. */
export function endsResultSet(payload: Buffer, deprecateEof: boolean): boolean {
  if (payload[0] !== EOF) return false;
  return deprecateEof ? payload.length < MAX_PAYLOAD : payload.length < 9;
}

/** `transaction` while SERVER_STATUS_IN_TRANS is set, whatever the autocommit flag says. */
export function transactionStatus(serverStatus: number): TransactionStatus {
  return serverStatus & SERVER_STATUS_IN_TRANS ? 'transaction' : 'idle';
}
