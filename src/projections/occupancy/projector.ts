import type { VacationRecord } from '../../events/types.ts';
import { lastWordPerCode } from '../last-word.ts';
import type { Projector } from '../types.ts';

export const OCCUPANCY_TABLE = 'rm_occupancy';

interface Span {
  subgerencia_id: string;
  codigo_pila: string;
  worker_id: number;
  start_date: string;
  end_date: string;
}

/** Only enjoyed time away takes a place in the unit; compensated days are paid, not taken. */
const span = (r: VacationRecord): Span | null =>
  !r.compensated && r.subgerenciaId !== null
    ? { subgerencia_id: r.subgerenciaId, codigo_pila: r.codigoPila, worker_id: r.workerId, start_date: r.startDate, end_date: r.endDate }
    : null;

/** One row per calendar day each live enjoyed vacation keeps its worker away from their subgerencia. */
export const occupancyProjector: Projector = {
  name: 'occupancy',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationDeleted']),
  tables: [OCCUPANCY_TABLE],
  ddl(suffix) {
    const t = `${OCCUPANCY_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
        subgerencia_id text NOT NULL,
        day            date NOT NULL,
        codigo_pila    text NOT NULL,
        worker_id      bigint NOT NULL,
        CONSTRAINT ${t}_pkey PRIMARY KEY (subgerencia_id, day, codigo_pila)
      );
      CREATE INDEX IF NOT EXISTS ${t}_code ON ${t} (codigo_pila);
    `;
  },
  async apply(q, events, suffix) {
    const t = `${OCCUPANCY_TABLE}${suffix}`;
    const spans = lastWordPerCode(events, span, () => null);
    if (spans.size === 0) return;
    // Replacing every touched code's rows makes the batch idempotent without ON CONFLICT, whose
    // speculative inserts cost more than these index probes (one row per day adds up in a rebuild).
    await q.query(`DELETE FROM ${t} WHERE codigo_pila = ANY($1::text[])`, [[...spans.keys()]]);
    const occupied = [...spans.values()].filter((s): s is Span => s !== null);
    if (occupied.length === 0) return;
    await q.query(
      `INSERT INTO ${t} (subgerencia_id, day, codigo_pila, worker_id)
       SELECT s.subgerencia_id, d::date, s.codigo_pila, s.worker_id
       FROM jsonb_to_recordset($1::jsonb) AS s(subgerencia_id text, codigo_pila text, worker_id bigint, start_date date, end_date date),
            generate_series(s.start_date, s.end_date, interval '1 day') AS d`,
      [JSON.stringify(occupied)],
    );
  },
};
