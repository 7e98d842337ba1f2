import type { Queryable } from '../../db/types.ts';
import type { Amortization } from '../../domain/index.ts';
import { AMORTIZATIONS_TABLE } from '../amortizations/projector.ts';
import { REGISTER_COLUMNS, REGISTER_TABLE } from '../register/projector.ts';
import { toEntry, type RegisterEntry } from '../register/queries.ts';
import { selectList, toNumber } from '../sql.ts';
import { VACATIONS_TABLE } from '../vacations/projector.ts';

/**
 * The payroll month's vacation novelties: each live record that touches the month, with the part
 * of its amortization that falls in it. The amortizations read model is read by month through its
 * own index (rm_amortizations_month), so a month costs the rows of that month whatever the size
 * of the company; the register gives each record's version at the cut, the vacations read model
 * the record an edit replaced.
 */

export interface NoveltyFilter {
  /** `YYYY-MM`. */
  month: string;
  subgerenciaId?: string;
  workerId?: number;
  /** The register as it stood at the end of this business day; null for the records as they stand now. */
  asOf: string | null;
}

export interface NoveltyRow {
  record: RegisterEntry;
  /** The code of the record this one replaced by an edit. */
  replaces: string | null;
  /**
   * The month's part of the amortization of the record's version at the cut; null when the
   * record was interrupted after the cut, whose version's plan the read model no longer holds.
   */
  part: Amortization | null;
}

export interface NoveltyTotals {
  workers: number;
  lines: number;
  businessDays: number;
  calendarDays: number;
  value: number;
}

/**
 * The versions of the cut joined to the month's amortizations and the current records. A version
 * interrupted later (its interruption date differs from the record's now) is matched by its dates,
 * since the read model holds only the plan after the interruption.
 */
function joined(f: NoveltyFilter, params: unknown[], range?: WorkerRange): string {
  params.push(f.month);
  const month = `$${params.length}`;
  const conditions: string[] = [];
  if (f.asOf === null) conditions.push('r.superseded_on IS NULL');
  else {
    params.push(f.asOf);
    const cut = `$${params.length}::date`;
    conditions.push(`r.recorded_on <= ${cut}`, `(r.superseded_on IS NULL OR r.superseded_on > ${cut})`);
  }
  conditions.push(...scopeConditions(f, params));
  if (range !== undefined) {
    params.push(range.after, range.upTo);
    conditions.push(`r.worker_id > $${params.length - 1}`, `r.worker_id <= $${params.length}`);
  }
  const where = conditions.join(' AND ');
  const current = `SELECT r.*, v.replaces, a.dias_habiles, a.dias_calendario, a.valor, true AS planned
      FROM ${AMORTIZATIONS_TABLE} a
      JOIN ${REGISTER_TABLE} r ON r.codigo_pila = a.codigo_pila
      JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = a.codigo_pila
     WHERE a.periodo = ${month} AND ${where}`;
  // The current version and the current record always agree on an interruption: the check is
  // only for a version at a cut. Left out, it also spares the planner an estimate of one row,
  // which made it join both whole tables before the month: several times slower at a large employer.
  if (f.asOf === null) return current;
  const version = `${current} AND r.interrupted_on IS NOT DISTINCT FROM v.interrupted_on`;
  const earlier = `SELECT r.*, v.replaces, NULL::integer, NULL::integer, NULL::bigint, false
      FROM ${VACATIONS_TABLE} v
      JOIN ${REGISTER_TABLE} r ON r.codigo_pila = v.codigo_pila
     WHERE v.interrupted_on IS NOT NULL AND ${where} AND r.interrupted_on IS DISTINCT FROM v.interrupted_on
       AND r.start_date <= (${month} || '-01')::date + interval '1 month' - interval '1 day'
       AND r.end_date >= (${month} || '-01')::date`;
  return `${version} UNION ALL ${earlier}`;
}

/**
 * A month's read narrowed to a subgerencia (the record's) or a worker: conditions on the register
 * row `r`, their values pushed on `params`.
 */
export function scopeConditions(f: { subgerenciaId?: string; workerId?: number }, params: unknown[]): string[] {
  const conditions: string[] = [];
  if (f.subgerenciaId !== undefined) {
    params.push(f.subgerenciaId);
    conditions.push(`r.subgerencia_id = $${params.length}`);
  }
  if (f.workerId !== undefined) {
    params.push(f.workerId);
    conditions.push(`r.worker_id = $${params.length}`);
  }
  return conditions;
}

/** Workers after `after` up to `upTo` inclusive, by id. */
interface WorkerRange {
  after: number;
  upTo: number;
}

/** Workers whose lines one read of a walk covers. */
const WALK = 1000;

/**
 * The next range of workers after `after` a walk reads: `walk` workers by id, through the
 * primary key of the workers (whether they have a record or not: the lines' read then skips
 * them through the register's worker index); the filter's one worker alone when it names one.
 * Null once past the last.
 */
async function nextRange(q: Queryable, f: NoveltyFilter, after: number, walk: number): Promise<WorkerRange | null> {
  if (f.workerId !== undefined) return after < f.workerId ? { after, upTo: f.workerId } : null;
  const r = await q.query<{ upto: unknown }>(
    `SELECT max(id) AS upto FROM (SELECT id FROM ref_workers WHERE id > $1 ORDER BY id LIMIT $2) w`,
    [after, walk],
  );
  const upTo = r.rows[0]?.upto;
  return upTo === null || upTo === undefined ? null : { after, upTo: toNumber(upTo) };
}

const rowOf = (month: string, row: Record<string, unknown>): NoveltyRow => ({
  record: toEntry(row),
  replaces: (row.replaces as string | null) ?? null,
  part: row.planned
    ? {
        periodo: month,
        diasHabiles: toNumber(row.dias_habiles),
        diasCalendario: toNumber(row.dias_calendario),
        valor: toNumber(row.valor),
      }
    : null,
});

/**
 * The next `limit` workers after `afterWorker` with a novelty in the month, their lines in worker
 * and start order. The workers are walked in id order a range at a time and each range's lines
 * read through the register's worker index, so a page costs the workers it passes over, and all
 * the pages of a month together one pass over them (reading the whole month for every page made a
 * month of 50,000 workers take half a minute).
 */
export async function noveltyPage(q: Queryable, f: NoveltyFilter, afterWorker: number, limit: number, walk = WALK): Promise<NoveltyRow[]> {
  const out: NoveltyRow[] = [];
  const seen = new Set<number>();
  let after = afterWorker;
  for (;;) {
    const range = await nextRange(q, f, after, walk);
    if (range === null) return out;
    const params: unknown[] = [];
    const lines = joined(f, params, range);
    const r = await q.query<Record<string, unknown>>(
      `SELECT ${selectList(REGISTER_COLUMNS, 'l')}, l.replaces, l.dias_habiles, l.dias_calendario, l.valor, l.planned
         FROM (${lines}) l ORDER BY l.worker_id, l.start_date, l.record_id`,
      params,
    );
    for (const row of r.rows) {
      const worker = toNumber(row.worker_id);
      if (!seen.has(worker)) {
        if (seen.size === limit) return out;
        seen.add(worker);
      }
      out.push(rowOf(f.month, row));
    }
    after = range.upTo;
  }
}

/**
 * The first revision of each of these codes in the register: the event that created the record,
 * whose plan a version before a later interruption had.
 */
export async function creationRevisions(q: Queryable, codes: readonly string[]): Promise<Map<string, number>> {
  if (codes.length === 0) return new Map();
  const r = await q.query<{ codigo_pila: string; revision: unknown }>(
    `SELECT codigo_pila, min(revision) AS revision FROM ${REGISTER_TABLE} WHERE codigo_pila = ANY($1::text[]) GROUP BY codigo_pila`,
    [codes],
  );
  return new Map(r.rows.map((row) => [row.codigo_pila, toNumber(row.revision)]));
}

/** The totals of the whole month under the filter, for lines whose plan the read model holds. */
export async function noveltyTotals(q: Queryable, f: NoveltyFilter): Promise<NoveltyTotals & { unplanned: number }> {
  const params: unknown[] = [];
  const r = await q.query<Record<string, unknown>>(
    `SELECT count(DISTINCT worker_id) AS workers, count(*) AS lines, count(*) FILTER (WHERE NOT planned) AS unplanned,
            coalesce(sum(dias_habiles), 0) AS business, coalesce(sum(dias_calendario), 0) AS calendar, coalesce(sum(valor), 0) AS value
       FROM (${joined(f, params)}) l`,
    params,
  );
  const t = r.rows[0]!;
  return {
    workers: toNumber(t.workers),
    lines: toNumber(t.lines),
    unplanned: toNumber(t.unplanned),
    businessDays: toNumber(t.business),
    calendarDays: toNumber(t.calendar),
    value: toNumber(t.value),
  };
}
