import type { DecodedEvent } from '../../events/codec.ts';
import type { EventMetadata, VacationRecord } from '../../events/types.ts';
import { todayInBogota } from '../../domain/index.ts';
import { columnDefinitions, type Columns } from '../sql.ts';
import { defineProjector, recordCode, type Projector, type Row } from '../types.ts';

/**
 * The vacation register (libro de vacaciones): every version of every record, each with the
 * business days on which it was the record's state (from `recorded_on`, until `superseded_on`,
 * exclusive; null while current). A record's version changes when it is approved or interrupted,
 * and ends without a successor when it is deleted, so the register as it stood on any day is
 * the versions of that day, and the live records of a worker are the current versions.
 */
export const REGISTER_TABLE = 'rm_register';

export const REGISTER_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  revision: 'bigint NOT NULL',
  worker_id: 'bigint NOT NULL',
  record_id: 'bigint NOT NULL',
  contract_id: 'bigint',
  subgerencia_id: 'text',
  start_date: 'date NOT NULL',
  end_date: 'date NOT NULL',
  business_days: 'integer NOT NULL',
  calendar_days: 'integer NOT NULL',
  salary: 'bigint NOT NULL',
  total_value: 'bigint NOT NULL',
  compensated: 'boolean NOT NULL',
  advance: 'boolean NOT NULL',
  approved: 'boolean NOT NULL',
  interrupted_on: 'date',
  interruption_reason: 'text',
  continues: 'text',
  recorded_on: 'date NOT NULL',
  superseded_on: 'date',
};

/** The business day an event happened on: the service's date when it was written. */
function businessDateOf(e: DecodedEvent): string {
  const m = e.metadata as Partial<EventMetadata>;
  if (m.businessDate) return m.businessDate;
  const t = Date.parse(m.occurredAt ?? e.stored.recordedAt);
  return todayInBogota(Number.isNaN(t) ? new Date(e.stored.recordedAt) : new Date(t));
}

function versionOf(r: VacationRecord, approved: boolean, revision: number, on: string): Row {
  return {
    codigo_pila: r.codigoPila,
    revision,
    worker_id: r.workerId,
    record_id: r.recordId,
    contract_id: r.contractId,
    subgerencia_id: r.subgerenciaId,
    start_date: r.startDate,
    end_date: r.endDate,
    business_days: r.businessDays,
    calendar_days: r.calendarDays,
    salary: r.salary,
    total_value: r.totalValue,
    compensated: r.compensated,
    advance: r.advance,
    approved,
    interrupted_on: null,
    interruption_reason: null,
    continues: r.continues ?? null,
    recorded_on: on,
    superseded_on: null,
  };
}

/**
 * A code's versions after its events. A creation opens a version (and leaves any earlier one of
 * the code as it was); an approval or an interruption closes the latest version on its business
 * day and opens the next; a deletion closes the latest and opens none, so that what follows it up
 * to the next creation changes nothing. An event at a revision the code's versions have reached
 * already was applied before: it changes nothing again, unless a creation before it was applied
 * again, which drops the versions after it.
 */
function evolveVersions(unit: Row[] | undefined, events: readonly DecodedEvent[]): Row[] | undefined {
  let versions = unit;
  for (const e of events) {
    const { event } = e;
    const revision = e.stored.revision;
    const on = businessDateOf(e);
    if (event.type === 'VacationCreated' || event.type === 'VacationImported') {
      const row = versionOf(event.data, event.type === 'VacationImported' && event.data.approved, revision, on);
      // The code's history starts again here: what followed it before is applied again after it.
      versions = [...(versions ?? []).filter((v) => (v.revision as number) < revision), row];
      continue;
    }
    if (!versions || versions.some((v) => (v.revision as number) >= revision)) continue;
    const latest = versions.reduce((a, b) => ((b.revision as number) > (a.revision as number) ? b : a));
    if (latest.superseded_on !== null) continue;
    const closed = { ...latest, superseded_on: on };
    const next = { ...closed, revision, recorded_on: on, superseded_on: null };
    let opened: Row | undefined;
    switch (event.type) {
      case 'VacationApproved':
        opened = { ...next, approved: true };
        break;
      case 'VacationInterrupted': {
        const d = event.data;
        opened = {
          ...next,
          end_date: d.endDate,
          business_days: d.businessDays,
          calendar_days: d.calendarDays,
          total_value: d.totalValue,
          interrupted_on: d.interruptedOn,
          interruption_reason: d.reason,
        };
        break;
      }
      case 'VacationDeleted':
        break;
      default:
        continue;
    }
    versions = versions.map((v) => (v === latest ? closed : v));
    if (opened) versions.push(opened);
  }
  return versions;
}

const HANDLED = ['VacationCreated', 'VacationImported', 'VacationApproved', 'VacationInterrupted', 'VacationDeleted'];

export const registerProjector: Projector = defineProjector<Row[]>({
  name: 'register',
  label: 'Libro de vacaciones',
  readBy: 'api',
  handles: new Set(HANDLED),
  table: REGISTER_TABLE,
  columns: REGISTER_COLUMNS,
  keyColumn: 'codigo_pila',
  unitOf: recordCode,
  evolve: evolveVersions,
  rowsOf: (versions) => versions,
  unitFrom: (rows) => [...rows],
  ddl(suffix) {
    const t = `${REGISTER_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(REGISTER_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila, revision)
      );
      CREATE INDEX IF NOT EXISTS ${t}_current ON ${t} (worker_id) WHERE superseded_on IS NULL;
      CREATE INDEX IF NOT EXISTS ${t}_worker ON ${t} (worker_id, start_date);
      -- A month's vacations by start date (the DIAN electronic payroll's), whatever the company's size.
      -- Made on a live table at the next start as on a new one: the DDL runs at every start.
      CREATE INDEX IF NOT EXISTS ${t}_start ON ${t} (start_date);
    `;
  },
});
