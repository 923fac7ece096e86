import { ConfigurationError } from 'waymark';
import { loadOptionalPeer } from '../../../src/ground/optionalPeer';

/** Node's error for a module it cannot find. */
function notFound(name: string): Error {
  return Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
}

jest.mock(
  'waymark-test-broken-peer',
  () => {
    throw notFound('waymark-test-peer-dependency');
  },
  { virtual: true },
);
jest.mock(
  'waymark-test-throwing-peer',
  () => {
    throw new TypeError('this package needs Node 99');
  },
  { virtual: true },
);

describe('loadOptionalPeer', () => {
  it('returns the package when it is installed', () => {
    expect(loadOptionalPeer<typeof import('tsyringe')>('x()', 'tsyringe').container).toBeDefined();
  });

  it('names a package that is not installed, and how to install it', () => {
    let thrown: unknown;
    try {
      loadOptionalPeer('adapter()', 'waymark-test-not-installed');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as Error).message).toBe(
      'adapter() needs the package "waymark-test-not-installed" (an optional peer dependency of ' +
        'waymark), which is not installed: npm install waymark-test-not-installed',
    );
    expect((thrown as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });

  it('takes the alternative when the package is not installed, and names the package when neither is', () => {
    expect(
      loadOptionalPeer<typeof import('tsyringe')>('x()', 'waymark-test-not-installed', 'tsyringe')
        .container,
    ).toBeDefined();
    expect(() =>
      loadOptionalPeer('adapter()', 'waymark-test-not-installed', 'waymark-test-nor-this'),
    ).toThrow(
      'adapter() needs the package "waymark-test-not-installed" (an optional peer dependency of ' +
        'waymark), or "waymark-test-nor-this"; neither is installed: ' +
        'npm install waymark-test-not-installed',
    );
  });

  it('says which module an installed package could not load', () => {
    const load = () => loadOptionalPeer('adapter()', 'waymark-test-broken-peer');
    expect(load).toThrow(ConfigurationError);
    expect(load).toThrow(
      'adapter() could not load the package "waymark-test-broken-peer": Cannot find module ' +
        "'waymark-test-peer-dependency'; reinstall it: npm install waymark-test-broken-peer",
    );
  });

  it('lets any other failure of the package through as it is', () => {
    const load = () => loadOptionalPeer('adapter()', 'waymark-test-throwing-peer');
    expect(load).toThrow(TypeError);
    expect(load).toThrow('this package needs Node 99');
  });
});
