import type { VacationRecord } from '../../events/types.ts';
import { lastWord } from '../last-word.ts';
import { columnDefinitions, type Columns } from '../sql.ts';
import { defineProjector, recordCode, type Projector } from '../types.ts';

/**
 * One row per live enjoyed vacation and the days it spans. Until migration 16 it was one row per
 * calendar day (rm_occupancy): fourteen rows for a two-week vacation, most of a rebuild's writes.
 */
export const OCCUPANCY_TABLE = 'rm_occupancy_spans';

export const OCCUPANCY_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  subgerencia_id: 'text NOT NULL',
  worker_id: 'bigint NOT NULL',
  start_date: 'date NOT NULL',
  end_date: 'date NOT NULL',
};

interface Span {
  subgerencia_id: string;
  codigo_pila: string;
  worker_id: number;
  start_date: string;
  end_date: string;
}

/**
 * Only enjoyed time away takes a place in the unit; compensated days are paid, not taken, and a
 * vacation interrupted on its first day (its end before its start) took none.
 */
const span = (r: VacationRecord): Span | null =>
  !r.compensated && r.subgerenciaId !== null && r.endDate >= r.startDate
    ? { subgerencia_id: r.subgerenciaId, codigo_pila: r.codigoPila, worker_id: r.workerId, start_date: r.startDate, end_date: r.endDate }
    : null;

/** The days each live enjoyed vacation keeps its worker away from their subgerencia. */
export const occupancyProjector: Projector = defineProjector<Span>({
  name: 'occupancy',
  label: 'Ocupación por subgerencia',
  readBy: 'panel',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted']),
  table: OCCUPANCY_TABLE,
  columns: OCCUPANCY_COLUMNS,
  keyColumn: 'codigo_pila',
  unitOf: recordCode,
  evolve: (unit, events) => lastWord(unit, events, span),
  rowsOf: (s) => [s as unknown as Record<string, unknown>],
  unitFrom: (rows) => rows[0] as unknown as Span,
  ddl(suffix) {
    const t = `${OCCUPANCY_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(OCCUPANCY_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila)
      );
      CREATE INDEX IF NOT EXISTS ${t}_unit ON ${t} (subgerencia_id, start_date, end_date);
      -- Who is away on some days, in any subgerencia (the panel's home page and calendar).
      CREATE INDEX IF NOT EXISTS ${t}_days ON ${t} USING gist (daterange(start_date, end_date, '[]'));
    `;
  },
});
