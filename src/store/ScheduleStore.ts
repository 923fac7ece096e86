import { isDuplicateKey } from './connection/Dialect';
import type { Database } from './connection/Database';

/** A stored schedule. Times are epoch milliseconds. */
export interface ScheduleRow {
  name: string;
  /** The `@Workflow` name each tick starts. */
  workflow: string;
  /** The encoded arguments every tick's run gets. */
  args: string;
  cron: string;
  timezone: string;
  catchUp: string;
  paused: boolean;
  /** The next tick not yet started. */
  nextAt: number;
  createdAt: number;
  updatedAt: number;
}

const COLUMNS =
  'name, workflow, args, cron, timezone, catch_up, paused, next_at, created_at, updated_at';

/**
 * The SQL of schedules. A tick is taken by moving `next_at` on with a compare-and-set, after
 * its run was inserted under an id derived from the schedule and the tick, so however many
 * workers look, and whichever of them dies halfway, each tick has exactly one run.
 */
export class ScheduleStore {
  constructor(private readonly db: Database) {}

  /**
   * Creates the schedule, or redefines the stored one. A definition equal to the stored one
   * keeps its `next_at` (an application that declares its schedules at every start loses no
   * tick); a changed one starts from `row.nextAt`. Returns the stored row.
   */
  async save(row: ScheduleRow): Promise<ScheduleRow> {
    try {
      await this.exec(
        `create schedule "${row.name}"`,
        `INSERT INTO waymark_schedules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.name,
          row.workflow,
          row.args,
          row.cron,
          row.timezone,
          row.catchUp,
          row.paused ? 1 : 0,
          row.nextAt,
          row.createdAt,
          row.updatedAt,
        ],
      );
      return row;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const stored = await this.get(row.name);
    if (stored && sameDefinition(stored, row)) return stored;
    await this.exec(
      `redefine schedule "${row.name}"`,
      'UPDATE waymark_schedules SET workflow = ?, args = ?, cron = ?, timezone = ?, catch_up = ?, ' +
        'next_at = ?, updated_at = ? WHERE name = ?',
      [
        row.workflow,
        row.args,
        row.cron,
        row.timezone,
        row.catchUp,
        row.nextAt,
        row.updatedAt,
        row.name,
      ],
    );
    return {
      ...row,
      paused: stored?.paused ?? false,
      createdAt: stored?.createdAt ?? row.createdAt,
    };
  }

  async get(name: string): Promise<ScheduleRow | undefined> {
    const { records } = await this.exec(
      `read schedule "${name}"`,
      `SELECT ${COLUMNS} FROM waymark_schedules WHERE name = ?`,
      [name],
    );
    return records[0] ? toScheduleRow(records[0]) : undefined;
  }

  /** Every schedule, by name. */
  async list(): Promise<ScheduleRow[]> {
    const { records } = await this.exec(
      'list schedules',
      `SELECT ${COLUMNS} FROM waymark_schedules ORDER BY name`,
      [],
    );
    return (records as Raw[]).map(toScheduleRow);
  }

  /** Pauses or resumes; a resumed schedule's next tick is `nextAt`. False if there is none. */
  async setPaused(name: string, paused: boolean, nextAt: number | null, now: number) {
    const { affected } = await this.exec(
      `${paused ? 'pause' : 'resume'} schedule "${name}"`,
      'UPDATE waymark_schedules SET paused = ?, next_at = COALESCE(?, next_at), updated_at = ? WHERE name = ?',
      [paused ? 1 : 0, nextAt, now, name],
    );
    return affected === 1;
  }

  /** Deletes the schedule (runs it started stay); false if there was none. */
  async delete(name: string): Promise<boolean> {
    const { affected } = await this.exec(
      `delete schedule "${name}"`,
      'DELETE FROM waymark_schedules WHERE name = ?',
      [name],
    );
    return affected === 1;
  }

  /** Schedules of these workflows not paused whose next tick has come, oldest first. */
  async due(workflows: string[], now: number, limit: number): Promise<ScheduleRow[]> {
    if (workflows.length === 0) return [];
    const { records } = await this.exec(
      'find due schedules',
      `SELECT ${COLUMNS} FROM waymark_schedules WHERE next_at <= ? AND paused = 0 ` +
        `AND workflow IN (${workflows.map(() => '?').join(', ')}) ORDER BY next_at LIMIT ?`,
      [now, ...workflows, limit],
    );
    return (records as Raw[]).map(toScheduleRow);
  }

  /** Moves the next tick from `from` to `to`; false when another worker moved it first. */
  async advance(name: string, from: number, to: number, now: number): Promise<boolean> {
    const { affected } = await this.exec(
      `advance schedule "${name}"`,
      'UPDATE waymark_schedules SET next_at = ?, updated_at = ? WHERE name = ? AND next_at = ?',
      [to, now, name, from],
    );
    return affected === 1;
  }

  private exec(operation: string, sql: string, params: unknown[]) {
    return this.db.exec(operation, this.db.sql(sql), params);
  }
}

type Raw = Record<string, unknown>;

function sameDefinition(a: ScheduleRow, b: ScheduleRow): boolean {
  return (
    a.workflow === b.workflow &&
    a.args === b.args &&
    a.cron === b.cron &&
    a.timezone === b.timezone &&
    a.catchUp === b.catchUp
  );
}

function toScheduleRow(raw: Raw): ScheduleRow {
  return {
    name: String(raw.name),
    workflow: String(raw.workflow),
    args: String(raw.args),
    cron: String(raw.cron),
    timezone: String(raw.timezone),
    catchUp: String(raw.catch_up),
    paused: Number(raw.paused) === 1,
    nextAt: Number(raw.next_at),
    createdAt: Number(raw.created_at),
    updatedAt: Number(raw.updated_at),
  };
}
