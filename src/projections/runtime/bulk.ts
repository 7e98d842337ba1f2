import type { Db, Queryable } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { copyRows } from '../sql.ts';
import type { Projector, Unit } from '../types.ts';
import { deleteUnits, eventsByUnit, loadUnits, rowsOfUnits } from './units.ts';

/**
 * A read model's build table filled the bulk way, by the projector's own evolve: a unit's events
 * are evolved in memory as they come and the unit goes to the table once, by COPY.
 *
 * Read stream by stream (`take` told which stream may go on in the next batch), every unit but
 * those of that stream is complete after a batch, as a unit's events all lie in one stream: they
 * go out, and memory holds little more than a batch. Read in the log's order instead (a store
 * that cannot read stream by stream), units stay in memory across batches until `maxUnits` of
 * them are held, then all go out; one met again after that is read back, and its rows replaced
 * when it goes out again, so memory stays bounded whatever the size of the log. A unit that never
 * changes (`appendOnly`: one an event) goes out as soon as it is made, in either order. Live batches
 * (units.ts) read and write every unit they touch: the same rows, some times the work.
 */
export class BulkBuild {
  /** Units evolved since the last spill; undefined for one whose rows must go. */
  private units = new Map<string, Unit | undefined>();
  /** Keys among `units` whose rows lie in the table already (read back after a spill). */
  private stored = new Set<string>();
  /** Units complete (read stream by stream), waiting to go out together. */
  private ready: (Unit | undefined)[] = [];
  /** Whether rows went to the table in the log's order: a unit not in memory may be there. */
  private spilled = false;
  /** The spills, one after another on a connection of their own, while the replay reads on. */
  private lane: Promise<void> = Promise.resolve();
  /** Writes queued on the lane and not yet landed. */
  private writing = 0;

  constructor(
    private readonly db: Db,
    readonly projector: Projector,
    private readonly suffix: string,
    private readonly maxUnits: number,
  ) {}

  /**
   * Evolves the units of a batch (events of other projectors are passed over). `openStream`,
   * when the batch is read stream by stream: the stream that may go on in the next batch.
   */
  async take(events: readonly DecodedEvent[], openStream?: string): Promise<void> {
    const p = this.projector;
    const touched = eventsByUnit(p, events);
    if (touched.size === 0) return;
    if (p.appendOnly) {
      // A unit that never changes is complete when met, whatever the order of reading: it goes
      // out with the next rows, never held among the units nor read back.
      for (const own of touched.values()) this.ready.push(p.evolve(undefined, own));
      return this.flowControl();
    }
    if (this.spilled) {
      const missing = [...touched.keys()].filter((key) => !this.units.has(key));
      if (missing.length > 0) {
        // A unit's rows are read back only once its spill has landed.
        await this.lane;
        for (const [key, unit] of await loadUnits(this.db, p, missing, this.suffix)) {
          this.units.set(key, unit);
          this.stored.add(key);
        }
      }
    }
    for (const [key, own] of touched) this.units.set(key, p.evolve(this.units.get(key), own));
    if (openStream !== undefined) {
      // Only the units of the stream that may go on stay: every other one is complete. Kept in a
      // new map rather than deleted one by one from the old (a tenth of this function's time).
      const held = new Map<string, Unit | undefined>();
      for (const [key, unit] of this.units) {
        const own = touched.get(key);
        if (own !== undefined && own[own.length - 1]!.stored.stream === openStream) held.set(key, unit);
        else this.ready.push(unit);
      }
      this.units = held;
    }
    if (this.units.size >= this.maxUnits) this.spill();
    return this.flowControl();
  }

  /** Sends out the ready rows once there are enough; the reading waits when the writing falls behind. */
  private async flowControl(): Promise<void> {
    if (this.ready.length >= READY_ROWS) this.spillReady();
    if (this.writing > WRITES_AHEAD) await this.lane;
  }

  private spillReady(): void {
    const ready = this.ready;
    this.ready = [];
    this.write([], ready);
  }

  /** Writes the units in memory out and forgets them. */
  private spill(): void {
    const units = this.units;
    const stored = this.stored;
    this.units = new Map();
    this.stored = new Set();
    this.spilled = true;
    this.write([...stored], units.values());
  }

  /** In the background, on a connection of its own: replaces the rows of `stored` by those of `units`. */
  private write(stored: string[], units: Iterable<Unit | undefined>): void {
    const p = this.projector;
    const rows = rowsOfUnits(p, units);
    this.writing++;
    this.lane = this.lane
      .then(() =>
        // Not durable: losing a table nobody reads yet only means rebuilding again.
        this.db.transaction(
          async (tx) => {
            await deleteUnits(tx, p, stored, this.suffix);
            await copyRows(tx, `${p.table}${this.suffix}`, p.columns, rows);
          },
          { durable: false },
        ),
      )
      .finally(() => this.writing--);
    // Failures surface in finish(); meanwhile the rejection is not left unhandled.
    this.lane.catch(() => {});
  }

  /** Writes out what is left; answers once every spill has landed, or with the first that failed. */
  async finish(): Promise<void> {
    if (this.ready.length > 0) this.spillReady();
    if (this.units.size > 0) this.spill();
    await this.lane;
  }

  /** Waits for the spills in flight, whatever their outcome (before the build's tables are dropped). */
  async settle(): Promise<void> {
    await this.lane.catch(() => {});
  }
}

/** Complete units written out together, read stream by stream. */
const READY_ROWS = 5_000;
/** Writes a build may have queued before its reading waits. */
const WRITES_AHEAD = 2;

/** The statements that make a table's indexes other than its constraints' (its key among them). */
async function indexesOf(q: Queryable, tables: readonly string[]): Promise<{ drop: string; create: string; key: boolean }[]> {
  const r = await q.query<{
    table_name: string;
    index_name: string;
    constraint_name: string | null;
    constraint_def: string | null;
    index_def: string;
  }>(
    `SELECT t.relname AS table_name, i.relname AS index_name, c.conname AS constraint_name,
            pg_get_constraintdef(c.oid) AS constraint_def, pg_get_indexdef(x.indexrelid) AS index_def
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
      WHERE x.indrelid = ANY ($1::text[]::regclass[])
      ORDER BY c.conname NULLS LAST, i.relname`,
    [tables],
  );
  return r.rows.map((row) =>
    row.constraint_name !== null
      ? {
          drop: `ALTER TABLE ${row.table_name} DROP CONSTRAINT ${row.constraint_name}`,
          create: `ALTER TABLE ${row.table_name} ADD CONSTRAINT ${row.constraint_name} ${row.constraint_def}`,
          key: true,
        }
      : { drop: `DROP INDEX ${row.index_name}`, create: row.index_def, key: false },
  );
}

/**
 * Drops a build table's indexes and answers the statements that make them again: built once over
 * all the rows (one sort each) instead of kept up row by row. With `keys`, its key too (keys
 * first when made again), for a build that never reads a unit back nor replaces one: a unit
 * written twice then fails as the key is made, as it would have on writing.
 */
export async function detachIndexes(db: Db, p: Projector, suffix: string, keys: boolean): Promise<string[]> {
  if (db.kind !== 'postgres') return [];
  const indexes = (
    await indexesOf(
      db,
      p.tables.map((t) => `${t}${suffix}`),
    )
  ).filter((i) => keys || !i.key);
  for (const { drop } of indexes) await db.exec(drop);
  return indexes.map((i) => i.create);
}

/** Makes the indexes detachIndexes dropped, with room for their sorts. */
export async function attachIndexes(db: Db, statements: readonly string[]): Promise<void> {
  if (statements.length === 0) return;
  await db.transaction(
    async (tx) => {
      await tx.exec(`SET LOCAL maintenance_work_mem = '256MB'`);
      for (const sql of statements) await tx.exec(sql);
    },
    { durable: false },
  );
}

/**
 * Statistics for a projector's build tables, so that the queries on them plan on what they hold
 * from the moment they are swapped in: a table made by a rebuild has none until autovacuum
 * analyzes it (never, where it is off), and the planner took 350,000 register rows for nine and
 * read a whole month of novelties for each page of it. A sample: a fraction of a second a table.
 */
export async function analyzeTables(q: Queryable, db: Db, p: Projector, suffix: string): Promise<void> {
  if (db.kind !== 'postgres') return;
  await q.exec(`ANALYZE ${p.tables.map((t) => `${t}${suffix}`).join(', ')}`);
}
