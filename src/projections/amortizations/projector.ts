import type { DecodedEvent } from '../../events/codec.ts';
import { columnDefinitions, type Columns } from '../sql.ts';
import { defineProjector, recordCode, type Projector, type Row } from '../types.ts';

export const AMORTIZATIONS_TABLE = 'rm_amortizations';

export const AMORTIZATION_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  periodo: 'text NOT NULL',
  dias_habiles: 'integer NOT NULL',
  dias_calendario: 'integer NOT NULL',
  valor: 'bigint NOT NULL',
};

/**
 * A record's parts by payroll period after its events: each creation or import writes its parts
 * over those of the same periods; an interruption replaces them all (a shortened vacation may no
 * longer reach a month it did).
 */
function evolveParts(unit: Row[] | undefined, events: readonly DecodedEvent[]): Row[] | undefined {
  let parts: Map<string, Row> | undefined;
  for (const { event } of events) {
    if (event.type !== 'VacationCreated' && event.type !== 'VacationImported' && event.type !== 'VacationInterrupted') continue;
    if (!parts || event.type === 'VacationInterrupted')
      parts = new Map(event.type === 'VacationInterrupted' ? [] : (unit ?? []).map((r) => [r.periodo as string, r]));
    for (const a of event.data.amortizations) {
      parts.set(a.periodo, {
        codigo_pila: event.data.codigoPila,
        periodo: a.periodo,
        dias_habiles: a.diasHabiles,
        dias_calendario: a.diasCalendario,
        valor: a.valor,
      });
    }
  }
  return parts ? [...parts.values()] : unit;
}

/** How a record's value is spread over payroll periods; kept after deletion as history. */
export const amortizationsProjector: Projector = defineProjector<Row[]>({
  name: 'amortizations',
  label: 'Amortizaciones',
  readBy: 'api',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted']),
  table: AMORTIZATIONS_TABLE,
  columns: AMORTIZATION_COLUMNS,
  keyColumn: 'codigo_pila',
  unitOf: recordCode,
  evolve: evolveParts,
  rowsOf: (parts) => parts,
  unitFrom: (rows) => [...rows],
  ddl(suffix) {
    const t = `${AMORTIZATIONS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(AMORTIZATION_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila, periodo)
      );
      -- A payroll month's novelties are read by month (src/projections/reports/novelties.ts).
      CREATE INDEX IF NOT EXISTS ${t}_month ON ${t} (periodo, codigo_pila);
    `;
  },
});
