import { numbered } from '../../../src/store/connection/placeholders';
import { SqliteGate } from '../../../src/store/connection/SqliteGate';

describe('the database handle’s placeholders', () => {
  it('numbers ? as $1, $2, … for PostgreSQL', () => {
    expect(numbered('SELECT 1 FROM t WHERE a = ? AND b IN (?, ?)', true)).toBe(
      'SELECT 1 FROM t WHERE a = $1 AND b IN ($2, $3)',
    );
  });

  it('keeps ? for SQLite and MySQL/MariaDB', () => {
    expect(numbered('UPDATE t SET a = ? WHERE id = ?', false)).toBe(
      'UPDATE t SET a = ? WHERE id = ?',
    );
  });
});

describe('SqliteGate', () => {
  it('runs work given to it one after the other, in the order given', async () => {
    const gate = new SqliteGate();
    const order: string[] = [];
    let release!: () => void;
    let started!: () => void;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const first = gate.serialized(
      () =>
        new Promise<void>((resolve) => {
          order.push('first starts');
          release = () => {
            order.push('first ends');
            resolve();
          };
          started();
        }),
    );
    const second = gate.serialized(() => {
      order.push('second starts');
      return Promise.resolve();
    });
    expect(gate.holders).toBe(2);
    await firstStarted;
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
    expect(gate.holders).toBe(0);
  });

  it('lets the next work run after one fails', async () => {
    const gate = new SqliteGate();
    await expect(gate.serialized(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.serialized(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(gate.holders).toBe(0);
  });
});
