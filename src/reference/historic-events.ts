import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import {
  amortize,
  calendarDays,
  endDate,
  monthsOf,
  nextBusinessDay,
  standingContract,
  vacationValue,
  type HolidayLookup,
} from '../domain/index.ts';
import { checkedMetadata, encodeBuilt, type CheckedMetadata } from '../events/codec.ts';
import { booked } from '../events/places.ts';
import { pilaStream, unitStream, workerStream } from '../events/streams.ts';
import { unattendedMetadata, type VacationImported } from '../events/types.ts';
import type { HistoricHandler, HistoricVacation } from './import-historic.ts';
import { ReferenceRepository, type WorkerRecords } from './repository.ts';
import { nextRecordIds } from '../store/record-ids.ts';
import type { EventStore, StreamWrite } from '../store/types.ts';

/**
 * The record a historic row stands for, valued with the contract that governed its start (or
 * the worker's latest contract when none did, as records of the replaced system may predate
 * the contracts it kept). Pure.
 */
export function historicRecord(
  row: HistoricVacation,
  file: WorkerRecords,
  recordId: number,
  calendar: HolidayLookup,
  nowIso: string,
): VacationImported {
  const contract = standingContract(file.contracts, row.startDate);
  const salary = contract?.baseSalary ?? 0;
  const end = endDate(nextBusinessDay(row.startDate, row.worksSaturday, calendar), row.days, row.worksSaturday, calendar);
  const total = vacationValue(salary, row.days);
  return {
    recordId,
    codigoPila: row.pilaCode,
    workerId: row.workerId,
    documentNumber: file.worker.documentNumber,
    contractId: contract?.id ?? null,
    companyContractId: contract?.companyContractId ?? null,
    subgerenciaId: contract?.subgerenciaId ?? null,
    startDate: row.startDate,
    endDate: end,
    businessDays: row.days,
    calendarDays: calendarDays(row.startDate, end),
    salary,
    totalValue: total,
    advance: row.paid,
    worksSaturday: row.worksSaturday,
    compensated: row.compensated,
    socialSecurityInPayroll: null,
    amortizations: amortize({ start: row.startDate, end, worksSaturday: row.worksSaturday, total, calendar }),
    replaces: null,
    createdAt: nowIso,
    approved: row.approved,
  };
}

/** Events of one imported record: the record, its code, and its places in the subgerencia. */
function writesFor(record: VacationImported, metadata: CheckedMetadata): StreamWrite[] {
  const writes: StreamWrite[] = [
    {
      stream: workerStream(record.workerId),
      expectedRevision: 'any',
      events: [encodeBuilt({ type: 'VacationImported', data: record }, metadata, randomUUID())],
    },
    {
      stream: pilaStream(record.codigoPila),
      expectedRevision: 'no_stream',
      events: [
        encodeBuilt(
          { type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } },
          metadata,
          randomUUID(),
        ),
      ],
    },
  ];
  // The same places a creation books (booked), so that whoever reads them sees one rule.
  for (const event of booked(record)) {
    for (const month of monthsOf(event.data.startDate, event.data.endDate)) {
      writes.push({
        stream: unitStream(event.data.subgerenciaId, month),
        expectedRevision: 'any',
        events: [encodeBuilt(event, metadata, randomUUID())],
      });
    }
  }
  return writes;
}

/** Several rows may touch one stream; an append names each stream once. */
function mergeByStream(writes: StreamWrite[]): StreamWrite[] {
  const by = new Map<string, StreamWrite>();
  for (const w of writes) {
    const prev = by.get(w.stream);
    if (prev) prev.events.push(...w.events);
    else by.set(w.stream, { ...w, events: [...w.events] });
  }
  return [...by.values()];
}

/**
 * Historic vacations become VacationImported events, once: a code whose PILA stream exists is
 * skipped, so re-importing a file changes nothing. On PostgreSQL the events are written in the
 * import's own transaction (all or nothing with the reference rows).
 */
/** What an import passes to importReferenceData so that historic rows become events in its transaction. */
export function historicImportOptions(
  store: EventStore,
  calendar: HolidayLookup,
  today?: () => string,
): { historic: HistoricHandler; beforeWrites?: (tx: Queryable) => Promise<void> } {
  return {
    historic: historicImporter(store, calendar, undefined, today),
    beforeWrites: (tx) => store.claimAppend(tx),
  };
}

/** Rows built between two turns of the event loop. */
const YIELD_EVERY = 200;

/**
 * Reads what a chunk of rows needs in the import's transaction (the codes already imported, the
 * workers' contracts, record ids) and returns how to build and write its events. The import reads
 * the next chunk before it writes this one and builds it while the database writes this one.
 */
/**
 * `today` is the service's business date (VACACIONES_TODAY or Bogotá's), recorded with the events
 * as the commands' are: the register read model dates a record's entry by it.
 */
export function historicImporter(
  store: EventStore,
  calendar: HolidayLookup,
  now: () => Date = () => new Date(),
  today?: () => string,
): HistoricHandler {
  return async (tx: Queryable, rows: HistoricVacation[]) => {
    if (rows.length === 0) return { imported: 0, skipped: 0 };
    const streams = rows.map((r) => pilaStream(r.pilaCode));
    const known = await store.existingStreams(tx, streams);
    const fresh = rows.filter((r) => !known.has(pilaStream(r.pilaCode)));
    if (fresh.length === 0) return { imported: 0, skipped: rows.length };

    const files = new Map<number, WorkerRecords>(
      (await new ReferenceRepository(tx).workerRecordsWithoutPayroll([...new Set(fresh.map((r) => r.workerId))])).map((f) => [
        f.worker.id,
        f,
      ]),
    );
    const ids = await nextRecordIds(tx, fresh.length);
    return {
      async build() {
        const t = now();
        const metadata = checkedMetadata(unattendedMetadata('import', t.toISOString(), today?.()));
        const all: StreamWrite[] = [];
        for (const [i, row] of fresh.entries()) {
          all.push(...writesFor(historicRecord(row, files.get(row.workerId)!, ids[i]!, calendar, t.toISOString()), metadata));
          // The chunk being written meanwhile sends its next statement as soon as the last is answered.
          if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((r) => setImmediate(r));
        }
        // Made ready here, while the chunk before is being written, not when this one's turn comes.
        const prepared = await store.prepareImport(mergeByStream(all));
        return {
          imported: fresh.length,
          skipped: rows.length - fresh.length,
          write: () => prepared.append(tx),
        };
      },
    };
  };
}
