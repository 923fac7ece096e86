/** Rewrites `?` placeholders as `$1, $2, …` for PostgreSQL; other dialects keep `?`. */
export function numbered(sql: string, pg: boolean): string {
  if (!pg) return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
