/**
 * What a console token may do: `viewer` reads (runs, histories, streams), `operator` also
 * acts on runs (signals such as approvals, cancel, retry), `admin` may do everything, including
 * whatever is added later that destroys data.
 */
export type ConsoleRole = 'viewer' | 'operator' | 'admin';

/** The roles, weakest first: each may do what the ones before it may. */
export const CONSOLE_ROLES: readonly ConsoleRole[] = ['viewer', 'operator', 'admin'];

/**
 * Whether a token of role `held` may make a call that needs `needed`.
 *
 * @example
 * ```ts
 * roleAllows('operator', 'viewer'); // true
 * roleAllows('viewer', 'operator'); // false
 * ```
 */
export function roleAllows(held: ConsoleRole, needed: ConsoleRole): boolean {
  return CONSOLE_ROLES.indexOf(held) >= CONSOLE_ROLES.indexOf(needed);
}

/** True when `value` names a {@link ConsoleRole}. */
export function isConsoleRole(value: unknown): value is ConsoleRole {
  return CONSOLE_ROLES.includes(value as ConsoleRole);
}
