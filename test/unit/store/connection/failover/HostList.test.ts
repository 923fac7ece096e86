import { ConfigurationError, dataSourceOptionsFromUrl } from 'waymark';
import { parseHostList } from '../../../../../src/store/connection/failover/HostList';

describe('database URLs that list several hosts', () => {
  it('reads each host and port in order, with the scheme default where a port is left out', () => {
    expect(parseHostList('mysql://root@h1:3311,h2,[::1]:3313/db')).toEqual({
      scheme: 'mysql',
      hosts: [
        { host: 'h1', port: 3311 },
        { host: 'h2', port: 3306 },
        { host: '::1', port: 3313 },
      ],
      targetSessionAttrs: 'read-write',
      url: 'mysql://root@h1:3311/db',
    });
  });

  it('takes target_session_attrs out of a PostgreSQL URL and keeps the other parameters', () => {
    const list = parseHostList(
      'postgres://u:p%40ss@10.0.0.1:5433,10.0.0.2:5434/app?sslmode=require&target_session_attrs=any',
    );
    expect(list).toMatchObject({
      hosts: [
        { host: '10.0.0.1', port: 5433 },
        { host: '10.0.0.2', port: 5434 },
      ],
      targetSessionAttrs: 'any',
      url: 'postgres://u:p%40ss@10.0.0.1:5433/app?sslmode=require',
    });
  });

  it('defaults PostgreSQL to the host that accepts writes, since waymark writes on every connection', () => {
    expect(parseHostList('postgresql://u@a:5433,b:5434/app')?.targetSessionAttrs).toBe(
      'read-write',
    );
  });

  it('leaves a URL with one host and no target_session_attrs to the single-host parser', () => {
    expect(parseHostList('mysql://root@127.0.0.1:3306/test')).toBeUndefined();
    expect(parseHostList('sqlite:./waymark.db')).toBeUndefined();
  });

  it('gives TypeORM options for the first host, with a failover pool behind them', () => {
    const mysql = dataSourceOptionsFromUrl('mysql://app:secret@db1:3311,db2:3312/orders');
    expect(mysql).toMatchObject({
      type: 'mysql',
      host: 'db1',
      port: 3311,
      username: 'app',
      password: 'secret',
      database: 'orders',
    });
    expect(typeof (mysql as { driver?: { createPool?: unknown } }).driver?.createPool).toBe(
      'function',
    );
    const pg = dataSourceOptionsFromUrl(
      'postgres://u@db1:5433,db2:5434/app?target_session_attrs=read-write',
    );
    expect(pg).toMatchObject({ type: 'postgres', host: 'db1', port: 5433, database: 'app' });
    expect(typeof (pg as { extra?: { Client?: unknown } }).extra?.Client).toBe('function');
  });

  it.each([
    ['mysql://root@h1:3311,,h3:3313/db', /malformed host \(entry 2 is empty\)/],
    ['mysql://root@h1:3311,h2:abc/db', /malformed host "h2:abc" \(port "abc" is not 1-65535\)/],
    ['mysql://root@h1:3311,h2:70000/db', /malformed host "h2:70000"/],
    ['mysql://root@h1:3311,:3312/db', /malformed host ":3312" \(no host name\)/],
    ['mysql://root@h1:3311,h 2:3312/db', /malformed host "h 2:3312"/],
    ['mysql://root@h1:3311,[::1/db', /malformed host "\[::1"/],
    [
      'mysql://root@h1:3311,postgres://h2:5432/db',
      /mixes the schemes mysql:\/\/ and postgres:\/\//,
    ],
    ['mysql://root@h1:3311/db,mysql://root@h2:3312/db', /repeats mysql:\/\/ inside its host list/],
    [
      'postgres://u@h1,h2/db?target_session_attrs=standby',
      /target_session_attrs=standby; waymark accepts read-write .* or any/,
    ],
    ['mysql://root@h1,h2/db?target_session_attrs=any', /a PostgreSQL parameter/],
  ])('%j is refused with a message naming what is wrong', (url, message) => {
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(ConfigurationError);
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(message);
  });

  it('never repeats a password in its errors', () => {
    const attempt = (): unknown => dataSourceOptionsFromUrl('mysql://root:hunter2@h1,h2:x/db');
    expect(attempt).toThrow(/root:\*\*\*@/);
    expect(attempt).not.toThrow(/hunter2/);
  });
});
