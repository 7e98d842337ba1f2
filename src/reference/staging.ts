import { CopyLines, copyText } from '../db/copy.ts';
import type { Queryable } from '../db/types.ts';
import type { SectionName } from './schema.ts';
import type { UpsertColumn } from './upsert.ts';

/**
 * The rows of an import on their way in: one temporary table per section, of the rows that
 * passed their own schema, each with its index in its section (and its line in an NDJSON file).
 * The checks across rows and against the database run on these tables, and the reference tables
 * are then written from them in one transaction, so the process holds a few thousand rows at a
 * time whatever the size of the file.
 */
export interface StageTable {
  name: string;
  columns: UpsertColumn[];
}

/** Ids named by rows that failed their own schema: they still count as declared by the file. */
export const DECLARED_TABLE = 'import_declared';

/** Rows per COPY: a megabyte or two of text. */
const CHUNK_ROWS = 5000;

export class Staging {
  private readonly buffers = new Map<string, CopyLines>();
  /** The COPY on its way: the rows that follow are read and checked meanwhile. */
  private copying: Promise<void> = Promise.resolve();
  private readonly counts = new Map<string, number>();
  /** One past the highest index staged per table: the rows are numbered below it. */
  private readonly ends = new Map<string, number>();

  /** Each section's COPY target (its table and columns), made once rather than for every row. */
  private readonly targets = new Map<SectionName, string>();

  constructor(
    private readonly conn: Queryable,
    private readonly tables: Record<SectionName, StageTable>,
  ) {
    for (const [section, t] of Object.entries(tables) as [SectionName, StageTable][]) {
      this.targets.set(section, `${t.name} (idx, line, ${t.columns.map((c) => c.name).join(', ')})`);
    }
  }

  async create(): Promise<void> {
    await this.drop();
    for (const t of Object.values(this.tables)) {
      const cols = t.columns.map((c) => `${c.name} ${c.type}`).join(', ');
      await this.conn.query(`CREATE TEMP TABLE ${t.name} (idx integer NOT NULL, line integer, ${cols})`);
    }
    await this.conn.query(`CREATE TEMP TABLE ${DECLARED_TABLE} (section text NOT NULL, id text NOT NULL)`);
  }

  async drop(): Promise<void> {
    // Qualified: with no temporary table of that name, a table of the schema must not be meant.
    const names = [...Object.values(this.tables).map((t) => t.name), DECLARED_TABLE];
    await this.conn.query(`DROP TABLE IF EXISTS ${names.map((n) => `pg_temp.${n}`).join(', ')}`);
  }

  /** Rows staged in a section so far. */
  count(section: SectionName): number {
    return this.counts.get(this.tables[section].name) ?? 0;
  }

  /** One past the highest index of a section's staged rows. */
  end(section: SectionName): number {
    return this.ends.get(this.tables[section].name) ?? 0;
  }

  async add(section: SectionName, index: number, line: number | undefined, values: unknown[]): Promise<void> {
    const t = this.tables[section];
    this.counts.set(t.name, (this.counts.get(t.name) ?? 0) + 1);
    this.ends.set(t.name, Math.max(this.ends.get(t.name) ?? 0, index + 1));
    await this.push(this.targets.get(section)!, [index, line, ...values]);
  }

  async declare(section: SectionName, id: string | number): Promise<void> {
    await this.push(`${DECLARED_TABLE} (section, id)`, [section, id]);
  }

  private async push(target: string, values: unknown[]): Promise<void> {
    let buffer = this.buffers.get(target);
    if (!buffer) this.buffers.set(target, (buffer = new CopyLines()));
    buffer.add(values.map(copyText).join('\t'));
    if (buffer.count >= CHUNK_ROWS) await this.flush(target);
  }

  private async flush(target: string): Promise<void> {
    const buffer = this.buffers.get(target);
    if (!buffer || buffer.count === 0) return;
    this.buffers.set(target, new CopyLines());
    const conn = this.conn;
    if (!conn.copyFrom) throw new Error('this database connection cannot COPY');
    await this.copying;
    this.copying = conn.copyFrom(target, buffer.bytes());
    // Heard of at the next flush or at finish(); never left unhandled meanwhile.
    this.copying.catch(() => {});
  }

  /** Writes what is still buffered and gathers the tables' statistics for the checks' plans. */
  async finish(): Promise<void> {
    for (const target of this.buffers.keys()) await this.flush(target);
    await this.copying;
    // Temporary tables are never analysed on their own; without statistics the planner takes
    // them for a few rows and may loop over one for every row of another.
    for (const t of Object.values(this.tables)) {
      // The tables are written from in ranges of idx.
      await this.conn.query(`CREATE INDEX ON ${t.name} (idx)`);
      await this.conn.query(`ANALYZE ${t.name}`);
    }
    await this.conn.query(`ANALYZE ${DECLARED_TABLE}`);
  }
}
