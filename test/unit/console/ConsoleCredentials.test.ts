import type { IncomingMessage } from 'node:http';
import { generateToken, hashConsoleToken } from 'waymark/console';
import { ConsoleCredentials } from '../../../src/console/ConsoleCredentials';

const VIEWER = generateToken();
const ADMIN = generateToken();
const credentials = ConsoleCredentials.of(
  { token: ADMIN, tokens: [{ role: 'viewer', sha256: hashConsoleToken(VIEWER), name: 'desk' }] },
  'test',
);

function request(authorization: string | undefined): IncomingMessage {
  return { headers: authorization === undefined ? {} : { authorization } } as IncomingMessage;
}

describe('ConsoleCredentials', () => {
  it('identifies a bare token (as waymark mcp reads one from the environment)', () => {
    expect(credentials.identifyToken(VIEWER)).toEqual({ name: 'desk', role: 'viewer' });
    expect(credentials.identifyToken(` ${ADMIN}\n`)).toEqual({
      name: 'console-token',
      role: 'admin',
    });
    expect(credentials.identifyToken(generateToken())).toBeUndefined();
  });

  it('identifies the bearer token of a request the same way', () => {
    expect(credentials.identify(request(`Bearer ${VIEWER}`))).toEqual({
      name: 'desk',
      role: 'viewer',
    });
    expect(credentials.identify(request(`Basic ${VIEWER}`))).toBeUndefined();
    expect(credentials.identify(request(undefined))).toBeUndefined();
  });
});
