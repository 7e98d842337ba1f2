/**
 * The events of a generated employer, as the benchmarks append them through the event store:
 * ten per worker on average across its vacation, PILA, month and audit streams.
 */
import { randomUUID } from 'node:crypto';
import { encode } from '../src/events/codec.ts';
import { auditStream, pilaStream, unitStream, workerStream } from '../src/events/streams.ts';
import type { DomainEvent, EventMetadata, VacationRecord } from '../src/events/types.ts';
import { WrongExpectedRevisionError, type EventStore, type NewEvent, type StreamWrite } from '../src/store/types.ts';

const WORKERS_PER_APPEND = 250;

const meta = (): EventMetadata => ({
  userId: 7,
  userEmail: 'bench@example.com',
  apiKeyId: null,
  apiKeyName: 'bench',
  requestId: randomUUID(),
  correlationId: randomUUID(),
  idempotencyKey: null,
  occurredAt: '2024-03-01T15:00:00.000Z',
  source: 'http',
});
const ev = (e: DomainEvent): NewEvent => encode(e, meta(), randomUUID());

function vacation(workerId: number, n: number, over: Partial<VacationRecord> = {}): VacationRecord {
  return {
    recordId: workerId * 10 + n,
    codigoPila: `B${workerId}-${n}`,
    workerId,
    documentNumber: String(10_000_000 + workerId),
    contractId: workerId,
    companyContractId: 1 + (workerId % 5),
    subgerenciaId: `SG${workerId % 40}`,
    startDate: '2024-04-08',
    endDate: '2024-04-19',
    businessDays: 10,
    calendarDays: 12,
    salary: 2_500_000 + workerId,
    totalValue: 833_333,
    advance: false,
    worksSaturday: false,
    compensated: n === 2 && workerId % 3 === 0,
    socialSecurityInPayroll: true,
    amortizations: [{ periodo: '2024-04', diasHabiles: 10, diasCalendario: 12, valor: 833_333 }],
    replaces: null,
    createdAt: '2024-03-01T15:00:00.000Z',
    ...over,
  };
}

/** Four variants of 10, 12, 9 and 9 events: ten per worker on average. */
export function workerWrites(w: number): StreamWrite[] {
  const a = vacation(w, 1);
  const b = vacation(w, 2, { startDate: '2024-07-01', endDate: '2024-07-05', businessDays: 5, calendarDays: 5 });
  const own: NewEvent[] = [ev({ type: 'VacationCreated', data: a }), ev({ type: 'VacationCreated', data: b })];
  own.push(
    ev({
      type: 'VacationApproved',
      data: { codigoPila: a.codigoPila, workerId: w, approvedByUserId: 9, approvedAt: '2024-03-02T10:00:00Z' },
    }),
  );
  const codes = [a.codigoPila, b.codigoPila];
  const deletion = (reason: 'delete' | 'edit', replacedBy: string | null) =>
    ev({
      type: 'VacationDeleted',
      data: {
        codigoPila: b.codigoPila,
        workerId: w,
        reason,
        replacedBy,
        snapshot: { ...b, approved: false },
        deletedByUserId: 8,
        deletedAt: '2024-03-03T10:00:00Z',
      },
    });
  const variant = w % 4;
  if (variant === 0) own.push(deletion('delete', null));
  if (variant === 1) {
    const c = vacation(w, 3, { startDate: '2024-07-02', endDate: '2024-07-05', businessDays: 4, replaces: b.codigoPila });
    own.push(deletion('edit', c.codigoPila), ev({ type: 'VacationCreated', data: c }));
    codes.push(c.codigoPila);
  }
  if (variant === 2)
    own.push(
      ev({
        type: 'VacationApproved',
        data: { codigoPila: b.codigoPila, workerId: w, approvedByUserId: 9, approvedAt: '2024-03-02T10:00:00Z' },
      }),
    );
  if (variant === 3)
    own.push(
      ev({ type: 'VacationImported', data: { ...vacation(w, 4, { startDate: '2023-12-04', endDate: '2023-12-15' }), approved: true } }),
    );

  const writes: StreamWrite[] = [{ stream: workerStream(w), expectedRevision: 'any', events: own }];
  for (const code of codes)
    writes.push({
      stream: pilaStream(code),
      expectedRevision: 'any',
      events: [ev({ type: 'PilaCodeAssigned', data: { codigoPila: code, workerId: w } })],
    });
  if (variant <= 1) {
    writes.push({
      stream: unitStream(a.subgerenciaId!, '2024-04'),
      expectedRevision: 'any',
      events: [
        ev({
          type: 'SlotsBooked',
          data: { codigoPila: a.codigoPila, workerId: w, subgerenciaId: a.subgerenciaId!, startDate: a.startDate, endDate: a.endDate },
        }),
      ],
    });
  }
  const consulted = () =>
    ev({
      type: 'VacationDataConsulted',
      data: {
        workerId: w,
        documentNumber: a.documentNumber,
        outcome: { estado: 'ACTIVO', dias: 15 },
        companyContractId: a.companyContractId,
        consultedAt: '2024-03-01T12:00:00Z',
      },
    });
  writes.push({
    stream: auditStream(w),
    expectedRevision: 'any',
    events: [
      consulted(),
      ev({
        type: 'ContractStatusChecked',
        data: {
          workerId: w,
          documentNumber: a.documentNumber,
          documentType: 'CC',
          estado: 'ACTIVO',
          activo: true,
          checkedAt: '2024-03-01T12:00:00Z',
        },
      }),
      consulted(),
    ],
  });
  return writes;
}

/**
 * One write per stream per append, in stream-name order: the unit streams are shared by many
 * workers, and concurrent appends that create the same new streams in different orders deadlock.
 */
function merge(writes: StreamWrite[]): StreamWrite[] {
  const byStream = new Map<string, StreamWrite>();
  for (const w of writes) {
    const seen = byStream.get(w.stream);
    if (seen) seen.events.push(...w.events);
    else byStream.set(w.stream, { ...w, events: [...w.events] });
  }
  return [...byStream.values()].sort((x, y) => (x.stream < y.stream ? -1 : x.stream > y.stream ? 1 : 0));
}

/** Appends the events of workers 1 to `workers`, `appenders` appends at a time; the number of events. */
export async function appendWorkers(store: EventStore, workers: number, appenders: number): Promise<number> {
  let next = 1;
  let appended = 0;
  await Promise.all(
    Array.from({ length: appenders }, async () => {
      while (next <= workers) {
        const first = next;
        next += WORKERS_PER_APPEND;
        const writes: StreamWrite[] = [];
        for (let w = first; w < Math.min(first + WORKERS_PER_APPEND, workers + 1); w++) writes.push(...workerWrites(w));
        const merged = merge(writes);
        // Two appenders creating the same unit stream at once: the loser is told so; it only has to retry.
        for (;;) {
          try {
            await store.append(merged);
            break;
          } catch (err) {
            if (!(err instanceof WrongExpectedRevisionError)) throw err;
          }
        }
        appended += merged.reduce((n, w) => n + w.events.length, 0);
      }
    }),
  );
  return appended;
}
