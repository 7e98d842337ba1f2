import type { DecodedEvent } from '../../events/codec.ts';
import { LATEST_FIRST, columnDefinitions, columnNames, loggedEvents, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

export const AMORTIZATIONS_TABLE = 'rm_amortizations';

export const AMORTIZATION_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  periodo: 'text NOT NULL',
  dias_habiles: 'integer NOT NULL',
  dias_calendario: 'integer NOT NULL',
  valor: 'bigint NOT NULL',
};

/**
 * The rows a batch writes, and the codes whose earlier rows an interruption replaces (a shortened
 * vacation may no longer reach a month it did).
 */
function fold(events: readonly DecodedEvent[]): { rows: Map<string, Record<string, unknown>>; replaced: Set<string> } {
  const rows = new Map<string, Record<string, unknown>>();
  const replaced = new Set<string>();
  for (const { event } of events) {
    if (event.type !== 'VacationCreated' && event.type !== 'VacationImported' && event.type !== 'VacationInterrupted') continue;
    if (event.type === 'VacationInterrupted') {
      replaced.add(event.data.codigoPila);
      for (const key of [...rows.keys()]) if (key.startsWith(`${event.data.codigoPila}\u0000`)) rows.delete(key);
    }
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
  return { rows, replaced };
}

/** How a record's value is spread over payroll periods; kept after deletion as history. */
export const amortizationsProjector: Projector = {
  name: 'amortizations',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted']),
  tables: [AMORTIZATIONS_TABLE],
  ddl(suffix) {
    const t = `${AMORTIZATIONS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(AMORTIZATION_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila, periodo)
      );
      -- A payroll month's novelties are read by month (src/projections/law/novelties.ts).
      CREATE INDEX IF NOT EXISTS ${t}_month ON ${t} (periodo, codigo_pila);
    `;
  },
  async apply(q, events, suffix) {
    const t = `${AMORTIZATIONS_TABLE}${suffix}`;
    const { rows, replaced } = fold(events);
    if (replaced.size > 0) await q.query(`DELETE FROM ${t} WHERE codigo_pila = ANY($1::text[])`, [[...replaced]]);
    await upsertRows(q, t, AMORTIZATION_COLUMNS, [...rows.values()], ['codigo_pila', 'periodo']);
  },
  replaySql(suffix) {
    // Per code and period, the last part written since the code's last interruption (which
    // replaces every part before it), the last of an event's own parts first: what apply() leaves.
    const lastInterruption = `LEFT JOIN (SELECT DISTINCT ON (x.data->>'codigoPila') x.data->>'codigoPila' AS code, x.tx_id, x.position
                   FROM events x WHERE x.type = 'VacationInterrupted' AND (x.tx_id, x.position) <= ($1::text::xid8, $2::bigint)
                  ORDER BY x.data->>'codigoPila', x.tx_id DESC, x.position DESC) li ON li.code = e.data->>'codigoPila'
         CROSS JOIN LATERAL jsonb_array_elements(e.data->'amortizations') WITH ORDINALITY AS a(part, n)`;
    return [
      `INSERT INTO ${AMORTIZATIONS_TABLE}${suffix} (${columnNames(AMORTIZATION_COLUMNS)})
       SELECT DISTINCT ON (e.data->>'codigoPila', a.part->>'periodo')
              e.data->>'codigoPila', a.part->>'periodo', (a.part->>'diasHabiles')::integer,
              (a.part->>'diasCalendario')::integer, (a.part->>'valor')::bigint
         FROM ${loggedEvents(['VacationCreated', 'VacationImported', 'VacationInterrupted'], lastInterruption)}
          AND (li.code IS NULL OR (e.tx_id, e.position) >= (li.tx_id, li.position))
        ORDER BY e.data->>'codigoPila', a.part->>'periodo', ${LATEST_FIRST}, a.n DESC`,
    ];
  },
};
