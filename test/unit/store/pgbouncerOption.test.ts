import { DataSource } from 'typeorm';
import { ConfigurationError, dataSourceOptionsFromUrl } from 'waymark';
import { redact } from '../../../src/store/connection/url/DatabaseUrl';
import { isBehindPgbouncer } from '../../../src/store/connection/pgbouncerOption';

describe('the pgbouncer URL parameter', () => {
  it.each(['true', '1', 'TRUE'])(
    'pgbouncer=%s reaches the DataSource options as extra.pgbouncer',
    (value) => {
      const options = dataSourceOptionsFromUrl(`postgres://u@pooler:6543/app?pgbouncer=${value}`);
      expect(options).toMatchObject({
        type: 'postgres',
        port: 6543,
        extra: { min: 1, pgbouncer: true },
      });
      expect(isBehindPgbouncer(options)).toBe(true);
    },
  );

  it.each(['false', '0'])('pgbouncer=%s is the same as leaving it out', (value) => {
    const options = dataSourceOptionsFromUrl(`postgres://u@db:5432/app?pgbouncer=${value}`);
    expect(options).toMatchObject({ extra: { min: 1 } });
    expect(isBehindPgbouncer(options)).toBe(false);
    expect(isBehindPgbouncer(dataSourceOptionsFromUrl('postgres://u@db:5432/app'))).toBe(false);
  });

  it('goes with the other parameters, and shows in messages', () => {
    const url = 'postgres://u:secret@pooler:6543/app?sslmode=disable&poolSize=4&pgbouncer=true';
    expect(dataSourceOptionsFromUrl(url)).toMatchObject({
      poolSize: 4,
      extra: { pgbouncer: true },
    });
    expect(redact(url)).toBe(
      'postgres://u:***@pooler:6543/app?sslmode=disable&poolSize=4&pgbouncer=true',
    );
  });

  it('a host list of poolers keeps it beside its failover client', () => {
    const options = dataSourceOptionsFromUrl(
      'postgres://u@pooler1:6543,pooler2:6543/app?target_session_attrs=read-write&pgbouncer=true',
    );
    expect(options).toMatchObject({
      host: 'pooler1',
      port: 6543,
      extra: { min: 1, pgbouncer: true },
    });
    expect(typeof (options.extra as { Client?: unknown }).Client).toBe('function');
    expect(isBehindPgbouncer(options)).toBe(true);
  });

  it.each([
    ['postgres://u@db/app?pgbouncer=yes', /pgbouncer=yes; expected true or false/],
    ['postgres://u@db/app?pgbouncer=true&pgbouncer=false', /gives parameter "pgbouncer" twice/],
    [
      'mysql://u@db:3306/app?pgbouncer=true',
      /has pgbouncer, a PostgreSQL parameter .*; a mysql:\/\/ URL does not take it/,
    ],
    ['mariadb://u@h1:3311,h2:3312/app?pgbouncer=false', /a mysql:\/\/ URL does not take it/],
    ['sqlite:./waymark.db?pgbouncer=true', /unknown parameter "pgbouncer"/],
  ])('%j is refused with a clear message', (url, message) => {
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(ConfigurationError);
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(message);
  });

  it("a DataSource of the application's own says it with extra: { pgbouncer: true }", () => {
    const own = new DataSource({ type: 'postgres', host: 'pooler', extra: { pgbouncer: true } });
    expect(isBehindPgbouncer(own.options)).toBe(true);
    expect(isBehindPgbouncer({ type: 'postgres', extra: { pgbouncer: false } })).toBe(false);
    expect(isBehindPgbouncer({ type: 'mysql', extra: { pgbouncer: true } })).toBe(false);
  });

  it('extra.pgbouncer that is not a boolean is refused, never read as either', () => {
    const options = { type: 'postgres', extra: { pgbouncer: 'false' } } as const;
    expect(() => isBehindPgbouncer(options)).toThrow(
      'the DataSource option extra.pgbouncer must be true or false, got "false"',
    );
  });
});
