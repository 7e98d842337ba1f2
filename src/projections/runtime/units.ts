import type { Queryable } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { insertRows, selectList, sqlType } from '../sql.ts';
import type { Projector, Row, Unit } from '../types.ts';

/** A batch's events of each unit, in the log's order, units in the order first met. */
export function eventsByUnit(p: Projector, events: readonly DecodedEvent[]): Map<string, DecodedEvent[]> {
  const out = new Map<string, DecodedEvent[]>();
  for (const e of events) {
    if (!p.handles.has(e.event.type)) continue;
    const key = p.unitOf(e);
    if (key === undefined) continue;
    const own = out.get(key);
    if (own) own.push(e);
    else out.set(key, [e]);
  }
  return out;
}

const NUMERIC = new Set(['bigint', 'integer', 'smallint']);

/** The key column's array type, for `= ANY ($1::<type>[])` on its index. */
const keyArray = (p: Projector): string => `${sqlType(p.columns[p.keyColumn]!)}[]`;

/** The stored units of these keys under `suffix`; a key with no rows is left out. */
export async function loadUnits(q: Queryable, p: Projector, keys: readonly string[], suffix: string): Promise<Map<string, Unit>> {
  const out = new Map<string, Unit>();
  if (keys.length === 0) return out;
  const r = await q.query<Row>(`SELECT ${selectList(p.columns)} FROM ${p.table}${suffix} WHERE ${p.keyColumn} = ANY ($1::${keyArray(p)})`, [
    keys,
  ]);
  // Integers come back as strings from bigint columns: the units hold numbers, as evolve makes them.
  const numeric = Object.keys(p.columns).filter((c) => NUMERIC.has(sqlType(p.columns[c]!)));
  const rows = new Map<string, Row[]>();
  for (const row of r.rows) {
    for (const c of numeric) if (row[c] !== null && row[c] !== undefined) row[c] = Number(row[c]);
    const key = String(row[p.keyColumn]);
    const own = rows.get(key);
    if (own) own.push(row);
    else rows.set(key, [row]);
  }
  for (const [key, own] of rows) out.set(key, p.unitFrom(own));
  return out;
}

/** Removes the rows of these units. */
export async function deleteUnits(q: Queryable, p: Projector, keys: readonly string[], suffix: string): Promise<void> {
  if (keys.length === 0) return;
  await q.query(`DELETE FROM ${p.table}${suffix} WHERE ${p.keyColumn} = ANY ($1::${keyArray(p)})`, [keys]);
}

/** The rows of these units, in order. */
export function rowsOfUnits(p: Projector, units: Iterable<Unit | undefined>): Row[] {
  const rows: Row[] = [];
  for (const u of units) if (u !== undefined) for (const row of p.rowsOf(u)) rows.push(row);
  return rows;
}

/**
 * Applies a batch to the projector's table the live way: reads the units the batch touches,
 * evolves them and writes back those that changed (their old rows deleted, the new inserted).
 * A batch applied twice in a row finds its units already evolved and writes nothing.
 */
export async function applyBatch(q: Queryable, p: Projector, events: readonly DecodedEvent[], suffix: string): Promise<void> {
  const table = `${p.table}${suffix}`;
  const touched = eventsByUnit(p, events);
  if (touched.size === 0) return;
  if (p.appendOnly) {
    const rows = rowsOfUnits(
      p,
      [...touched.values()].map((own) => p.evolve(undefined, own)),
    );
    await insertRows(q, table, p.columns, rows, `ON CONFLICT (${p.keyColumn}) DO NOTHING`);
    return;
  }
  const stored = await loadUnits(q, p, [...touched.keys()], suffix);
  const changed: (Unit | undefined)[] = [];
  const replaced: string[] = [];
  for (const [key, own] of touched) {
    const before = stored.get(key);
    const after = p.evolve(before, own);
    if (after === before) continue;
    if (before !== undefined) replaced.push(key);
    changed.push(after);
  }
  await deleteUnits(q, p, replaced, suffix);
  await insertRows(q, table, p.columns, rowsOfUnits(p, changed));
}
