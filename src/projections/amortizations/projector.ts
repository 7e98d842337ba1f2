import type { DecodedEvent } from '../../events/codec.ts';
import { LATEST_FIRST, loggedEvents, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

export const AMORTIZATIONS_TABLE = 'rm_amortizations';

const COLUMNS: Columns = {
  codigo_pila: 'text',
  periodo: 'text',
  dias_habiles: 'integer',
  dias_calendario: 'integer',
  valor: 'bigint',
};

function fold(events: readonly DecodedEvent[]): Map<string, Record<string, unknown>> {
  const rows = new Map<string, Record<string, unknown>>();
  for (const { event } of events) {
    if (event.type !== 'VacationCreated' && event.type !== 'VacationImported') continue;
    for (const a of event.data.amortizations) {
      rows.set(`${event.data.codigoPila}\u0000${a.periodo}`, {
        codigo_pila: event.data.codigoPila,
        periodo: a.periodo,
        dias_habiles: a.diasHabiles,
        dias_calendario: a.diasCalendario,
        valor: a.valor,
      });
    }
  }
  return rows;
}

/** How a record's value is spread over payroll periods; kept after deletion as history. */
export const amortizationsProjector: Projector = {
  name: 'amortizations',
  handles: new Set(['VacationCreated', 'VacationImported']),
  tables: [AMORTIZATIONS_TABLE],
  ddl(suffix) {
    const t = `${AMORTIZATIONS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
        codigo_pila     text NOT NULL,
        periodo         text NOT NULL,
        dias_habiles    integer NOT NULL,
        dias_calendario integer NOT NULL,
        valor           bigint NOT NULL,
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila, periodo)
      );
    `;
  },
  async apply(q, events, suffix) {
    await upsertRows(q, `${AMORTIZATIONS_TABLE}${suffix}`, COLUMNS, [...fold(events).values()], ['codigo_pila', 'periodo']);
  },
  replaySql(suffix) {
    // Per code and period, the last record's part of it (the last of a record's own parts first).
    return [
      `INSERT INTO ${AMORTIZATIONS_TABLE}${suffix} (codigo_pila, periodo, dias_habiles, dias_calendario, valor)
       SELECT DISTINCT ON (e.data->>'codigoPila', a.part->>'periodo')
              e.data->>'codigoPila', a.part->>'periodo', (a.part->>'diasHabiles')::integer,
              (a.part->>'diasCalendario')::integer, (a.part->>'valor')::bigint
         FROM ${loggedEvents(['VacationCreated', 'VacationImported'], "CROSS JOIN LATERAL jsonb_array_elements(e.data->'amortizations') WITH ORDINALITY AS a(part, n)")}
        ORDER BY e.data->>'codigoPila', a.part->>'periodo', ${LATEST_FIRST}, a.n DESC`,
    ];
  },
};
