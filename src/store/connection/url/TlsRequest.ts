import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../../../errors/ConfigurationError';

/**
 * How a connection uses TLS, with libpq's meanings: `disable` never; `prefer` when the
 * server offers it, without verifying it; `require` always, without verifying the
 * server's certificate; `verify-ca` always, checking the certificate chain; `verify-full`
 * always, checking the chain and that the certificate names the host connected to.
 */
export type TlsMode = 'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

/** What a URL asked for: the mode, the files it named, and how it said so (for messages). */
export interface TlsRequest {
  readonly mode: TlsMode;
  /** `parameter=value` as written, e.g. `sslmode=verify-full`. */
  readonly asked: string;
  /** The CA certificate file to trust, or `system` for Node's built-in CA list. */
  readonly ca?: { readonly parameter: string; readonly path: string };
  /** A client certificate and its key, for servers that authenticate clients by certificate. */
  readonly cert?: { readonly parameter: string; readonly path: string };
  readonly key?: { readonly parameter: string; readonly path: string };
}

/** The `tls.connect` options each driver is given (mysql2 names identity checks its own way). */
export type DriverTls = Record<string, unknown>;

/**
 * The `ssl` option of the pg or mysql2 driver for `request`: false when TLS is off. The
 * certificate files are read now, so a missing one is a configuration error at start.
 */
export function driverTls(request: TlsRequest, driver: 'postgres' | 'mysql'): false | DriverTls {
  if (request.mode === 'disable') return false;
  const files: DriverTls = {};
  if (request.ca && request.ca.path !== 'system') files.ca = readTlsFile(request.ca);
  if (request.cert) files.cert = readTlsFile(request.cert);
  if (request.key) files.key = readTlsFile(request.key);
  switch (request.mode) {
    case 'prefer':
    case 'require':
      return { ...files, rejectUnauthorized: false };
    case 'verify-ca':
      return driver === 'mysql'
        ? { ...files, rejectUnauthorized: true, verifyIdentity: false }
        : { ...files, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return driver === 'mysql'
        ? { ...files, rejectUnauthorized: true, verifyIdentity: true }
        : { ...files, rejectUnauthorized: true };
  }
}

/**
 * Refuses combinations that would not do what they seem to: a CA file with a mode that
 * verifies nothing, a client certificate without its key (or the reverse), or any file
 * with TLS off.
 */
export function assertCoherent(request: TlsRequest, where: string): void {
  const refuse = (problem: string): never => {
    throw new ConfigurationError(`database URL "${where}" ${problem}`);
  };
  const named = [request.ca, request.cert, request.key].filter((f) => f !== undefined);
  if (request.mode === 'disable' && named.length > 0) {
    refuse(`names ${named[0].parameter} but ${request.asked} turns TLS off`);
  }
  if (request.ca && request.mode === 'prefer') {
    refuse(
      `names ${request.ca.parameter} but ${request.asked} verifies no certificate; ask for verification (see the README, "Connecting to a database")`,
    );
  }
  if (Boolean(request.cert) !== Boolean(request.key)) {
    const [has, lacks] = request.cert
      ? [request.cert.parameter, 'a key']
      : [request.key!.parameter, 'a certificate'];
    refuse(`names ${has} without ${lacks}: a client certificate needs both`);
  }
}

function readTlsFile(file: { parameter: string; path: string }): Buffer {
  try {
    return readFileSync(file.path);
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new ConfigurationError(
      `cannot read the file ${file.parameter}=${file.path} names (${reason})`,
      { cause },
    );
  }
}
