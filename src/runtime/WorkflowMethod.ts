/** Method names of `C` that return promises: the candidates for a workflow. */
export type AsyncMethodOf<C> = {
  [K in keyof C]: C[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof C] &
  string;

/** The parameters of method `K` of `C`. */
export type ArgsOf<C, K extends keyof C> = C[K] extends (...args: infer A) => unknown ? A : never;
/** What method `K` of `C` resolves to. */
export type ResultOf<C, K extends keyof C> = C[K] extends (...args: never[]) => Promise<infer R>
  ? R
  : never;
