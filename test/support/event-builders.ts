import { randomUUID } from 'node:crypto';
import { encode } from '../../src/events/codec.ts';
import { auditStream, closureStream, pilaStream, workerStream } from '../../src/events/streams.ts';
import type { EventMetadata, VacationRecord } from '../../src/events/types.ts';
import type { AppendResult, EventStore, NewEvent, Position } from '../../src/store/types.ts';

/** Builders of valid domain events (through the codec's schemas) for read-side tests. */

export function metadata(over: Partial<EventMetadata> = {}): EventMetadata {
  return {
    userId: 7,
    userEmail: 'analista@example.com',
    apiKeyId: null,
    apiKeyName: 'nomina',
    requestId: randomUUID(),
    correlationId: randomUUID(),
    idempotencyKey: null,
    occurredAt: '2024-03-01T15:00:00.000Z',
    source: 'http',
    ...over,
  };
}

export function record(over: Partial<VacationRecord> & { codigoPila: string; workerId: number }): VacationRecord {
  return {
    recordId: Number(over.codigoPila.replace(/\D/g, '').slice(-9)) || 1,
    documentNumber: `D${over.workerId}`,
    contractId: over.workerId * 10,
    companyContractId: 3,
    subgerenciaId: 'SG1',
    startDate: '2024-03-04',
    endDate: '2024-03-15',
    businessDays: 10,
    calendarDays: 12,
    salary: 3_000_000,
    totalValue: 1_000_000,
    advance: false,
    worksSaturday: false,
    compensated: false,
    socialSecurityInPayroll: true,
    amortizations: [{ periodo: '2024-03', diasHabiles: 10, diasCalendario: 12, valor: 1_000_000 }],
    replaces: null,
    createdAt: '2024-03-01T15:00:00.000Z',
    ...over,
  };
}

type Meta = Partial<EventMetadata>;

/** A collective closure over these records (their figures are the caller's). */
export const closureScheduledEvent = (closureId: string, records: VacationRecord[], m?: Meta): NewEvent =>
  encode(
    {
      type: 'CollectiveClosureScheduled',
      data: {
        closureId,
        scope: { subgerenciaIds: ['SG1'], companyContractId: null },
        startDate: records[0]?.startDate ?? '2024-04-01',
        businessDays: records[0]?.businessDays ?? 10,
        worksSaturday: false,
        records: records.map((r) => ({ codigoPila: r.codigoPila, workerId: r.workerId, documentNumber: String(r.workerId) })),
        excluded: [],
        scheduledByUserId: 9,
        scheduledAt: '2024-03-01T15:00:00.000Z',
      },
    },
    metadata(m),
    randomUUID(),
  );

export const created = (r: VacationRecord, m?: Meta): NewEvent => encode({ type: 'VacationCreated', data: r }, metadata(m), randomUUID());

export const imported = (r: VacationRecord, approved: boolean, m?: Meta): NewEvent =>
  encode({ type: 'VacationImported', data: { ...r, approved } }, metadata({ source: 'import', ...m }), randomUUID());

export const approvedEvent = (r: Pick<VacationRecord, 'codigoPila' | 'workerId'>, m?: Meta): NewEvent =>
  encode(
    {
      type: 'VacationApproved',
      data: { codigoPila: r.codigoPila, workerId: r.workerId, approvedByUserId: 9, approvedAt: '2024-03-02T10:00:00.000Z' },
    },
    metadata(m),
    randomUUID(),
  );

export const deletedEvent = (
  r: VacationRecord,
  opts: { reason?: 'delete' | 'edit'; replacedBy?: string | null; approved?: boolean } = {},
  m?: Meta,
): NewEvent =>
  encode(
    {
      type: 'VacationDeleted',
      data: {
        codigoPila: r.codigoPila,
        workerId: r.workerId,
        reason: opts.reason ?? 'delete',
        replacedBy: opts.replacedBy ?? null,
        snapshot: { ...r, approved: opts.approved ?? false },
        deletedByUserId: 8,
        deletedAt: '2024-03-03T10:00:00.000Z',
      },
    },
    metadata(m),
    randomUUID(),
  );

/**
 * An interruption of `r` on `on` keeping `enjoyed` business days up to `end` (the figures are the
 * caller's: read-side tests need them consistent, not computed).
 */
export const interruptedEvent = (
  r: VacationRecord,
  o: { on: string; end: string; enjoyed: number; calendarDays: number; value: number; reason?: 'incapacidad' | 'otro' },
  m?: Meta,
): NewEvent =>
  encode(
    {
      type: 'VacationInterrupted',
      data: {
        ...r,
        endDate: o.end,
        businessDays: o.enjoyed,
        calendarDays: o.calendarDays,
        totalValue: o.value,
        amortizations:
          o.enjoyed > 0 ? [{ periodo: o.end.slice(0, 7), diasHabiles: o.enjoyed, diasCalendario: o.calendarDays, valor: o.value }] : [],
        interruptedOn: o.on,
        reason: o.reason ?? 'incapacidad',
        daysReturned: r.businessDays - o.enjoyed,
        before: { endDate: r.endDate, businessDays: r.businessDays, calendarDays: r.calendarDays, totalValue: r.totalValue },
        interruptedByUserId: 9,
        interruptedAt: '2024-04-20T10:00:00.000Z',
      },
    },
    metadata(m),
    randomUUID(),
  );

/** The one append an edit makes to the worker stream: the old record out, the new one in. */
export const editEvents = (old: VacationRecord, next: VacationRecord, m?: Meta): NewEvent[] => [
  deletedEvent(old, { reason: 'edit', replacedBy: next.codigoPila }, m),
  created({ ...next, replaces: old.codigoPila }, m),
];

export const consultedEvent = (workerId: number, m?: Meta): NewEvent =>
  encode(
    {
      type: 'VacationDataConsulted',
      data: {
        workerId,
        documentNumber: `D${workerId}`,
        outcome: { estado: 'ACTIVO', diasDisponibles: 12.5 },
        companyContractId: 3,
        consultedAt: '2024-03-01T12:00:00.000Z',
      },
    },
    metadata(m),
    randomUUID(),
  );

export const contractCheckedEvent = (workerId: number, m?: Meta): NewEvent =>
  encode(
    {
      type: 'ContractStatusChecked',
      data: {
        workerId,
        documentNumber: `D${workerId}`,
        documentType: 'CC',
        estado: 'ACTIVO',
        activo: true,
        checkedAt: '2024-03-01T12:00:00.000Z',
      },
    },
    metadata(m),
    randomUUID(),
  );

export const pilaAssignedEvent = (r: Pick<VacationRecord, 'codigoPila' | 'workerId'>): NewEvent =>
  encode({ type: 'PilaCodeAssigned', data: { codigoPila: r.codigoPila, workerId: r.workerId } }, metadata(), randomUUID());

export const toWorker = (store: EventStore, workerId: number, events: NewEvent[]): Promise<AppendResult> =>
  store.append([{ stream: workerStream(workerId), expectedRevision: 'any', events }]);

export const toAudit = (store: EventStore, workerId: number, events: NewEvent[]): Promise<AppendResult> =>
  store.append([{ stream: auditStream(workerId), expectedRevision: 'any', events }]);

/** A small deterministic pseudo-random generator, so that scenarios repeat exactly. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * Every kind of event for `workers` workers: creations (some compensated, some imported),
 * approvals, interruptions, deletions, edit pairs, PILA guard events and audit events. Returns the last position.
 */
export async function appendScenario(store: EventStore, workers: number, seed = 1, firstWorker = 1): Promise<Position> {
  const rnd = prng(seed);
  let last: Position = { commit: 0n, prepare: 0n };
  let n = 0;
  for (let w = firstWorker; w < firstWorker + workers; w++) {
    const code = () => `P${pad(w, 6)}${pad(++n, 5)}`;
    const day = 1 + Math.floor(rnd() * 15);
    const a = record({ codigoPila: code(), workerId: w, startDate: `2024-04-${pad(day, 2)}`, endDate: `2024-04-${pad(day + 9, 2)}` });
    const b = record({
      codigoPila: code(),
      workerId: w,
      compensated: rnd() < 0.3,
      businessDays: 5,
      startDate: '2024-06-03',
      endDate: '2024-06-07',
      subgerenciaId: rnd() < 0.5 ? 'SG1' : 'SG2',
    });
    const writes: { stream: string; expectedRevision: 'any'; events: NewEvent[] }[] = [];
    const ws: NewEvent[] = [rnd() < 0.2 ? imported(a, true) : created(a), created(b)];
    if (rnd() < 0.7) {
      ws.push(approvedEvent(a));
      // One worker in three stops the approved vacation after three days (CST art. 188).
      if (w % 3 === 0) {
        const end = `2024-04-${pad(day + 2, 2)}`;
        ws.push(interruptedEvent(a, { on: `2024-04-${pad(day + 3, 2)}`, end, enjoyed: 3, calendarDays: 3, value: 300_000 }));
      }
    }
    const roll = rnd();
    if (roll < 0.25) ws.push(deletedEvent(b));
    else if (roll < 0.5) ws.push(...editEvents(b, { ...b, codigoPila: code(), businessDays: 4, endDate: '2024-06-06' }));
    writes.push({ stream: workerStream(w), expectedRevision: 'any', events: ws });
    writes.push({ stream: pilaStream(a.codigoPila), expectedRevision: 'any', events: [pilaAssignedEvent(a)] });
    writes.push({ stream: auditStream(w), expectedRevision: 'any', events: [consultedEvent(w), contractCheckedEvent(w)] });
    // The last append decides a collective closure too, so every read model has an event of its own.
    if (w === firstWorker + workers - 1) {
      const id = `COL_${seed}_${firstWorker}`;
      writes.push({ stream: closureStream(id), expectedRevision: 'any', events: [closureScheduledEvent(id, [a])] });
    }
    last = (await store.append(writes)).position;
  }
  return last;
}
