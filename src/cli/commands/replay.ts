import type { Command } from 'commander';
import { emptyWorkerState, evolve, type WorkerState } from '../../commands/worker-state.ts';
import { decode } from '../../events/codec.ts';
import { auditStream, workerStream } from '../../events/streams.ts';
import type { DomainEvent } from '../../events/types.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { openEventStore } from '../../store/open.ts';
import { comparePositions, positionToString, type StoredEvent } from '../../store/types.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { formatTable } from './projections.ts';

interface VacationSummary {
  codigoPila: string;
  recordId: number;
  startDate: string;
  endDate: string;
  businessDays: number;
  compensated: boolean;
  approved: boolean;
  deleted: boolean;
  deletedReason: 'delete' | 'edit' | null;
  replaces: string | null;
  replacedBy: string | null;
}

interface StateAfter {
  liveRecords: number;
  daysTaken: number;
  vacations: VacationSummary[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `--as-of` as epoch milliseconds. A bare date means the whole of that day in Bogotá (UTC-5, no
 * daylight saving), which is how people there name a day.
 */
export function parseAsOf(s: string): number {
  if (DATE.test(s)) {
    const t = Date.parse(`${s}T23:59:59.999-05:00`);
    const [y, m, d] = s.split('-').map(Number) as [number, number, number];
    const check = new Date(Date.UTC(y, m - 1, d));
    if (!Number.isNaN(t) && check.getUTCMonth() === m - 1 && check.getUTCDate() === d) return t;
  } else {
    const t = Date.parse(s);
    if (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(t)) return t;
  }
  throw new CliError(`--as-of ${s} is not an ISO time or a date as YYYY-MM-DD`);
}

function stateAfter(state: WorkerState): StateAfter {
  const vacations = [...state.vacations.values()].map((v) => ({
    codigoPila: v.codigoPila,
    recordId: v.recordId,
    startDate: v.startDate,
    endDate: v.endDate,
    businessDays: v.businessDays,
    compensated: v.compensated,
    approved: v.approved,
    deleted: v.deleted,
    deletedReason: v.deletedReason,
    replaces: v.replaces,
    replacedBy: v.replacedBy,
  }));
  const live = vacations.filter((v) => !v.deleted);
  return { liveRecords: live.length, daysTaken: live.reduce((n, v) => n + v.businessDays, 0), vacations };
}

/** The few fields that say what an event did, for one table cell. */
function keyFields(e: DomainEvent | undefined, raw: StoredEvent): string {
  if (!e) return JSON.stringify(raw.data).slice(0, 60);
  switch (e.type) {
    case 'VacationCreated':
    case 'VacationImported': {
      const d = e.data;
      const extra = [d.compensated ? 'compensated' : 'enjoyed', d.replaces ? `replaces ${d.replaces}` : ''];
      if (e.type === 'VacationImported') extra.push(e.data.approved ? 'approved' : 'pending');
      return `${d.codigoPila} ${d.startDate}..${d.endDate} ${d.businessDays}d ${extra.filter(Boolean).join(' ')}`;
    }
    case 'VacationApproved':
      return `${e.data.codigoPila} by user ${e.data.approvedByUserId}`;
    case 'VacationDeleted':
      return `${e.data.codigoPila} ${e.data.reason}${e.data.replacedBy ? ` -> ${e.data.replacedBy}` : ''}`;
    case 'VacationInterrupted':
      return `${e.data.codigoPila} interrupted on ${e.data.interruptedOn} (${e.data.reason}): ${e.data.businessDays}d kept, ${e.data.daysReturned}d returned`;
    case 'VacationEditStarted':
      return `${e.data.codigoPila} -> ${e.data.newCodigoPila} (record ${e.data.newRecordId})`;
    case 'VacationEditFailed':
      return `${e.data.codigoPila} ${e.data.reason}${e.data.newRecordId === null ? '' : ` (record ${e.data.newRecordId})`}: ${e.data.detail.join('; ')}`.slice(0, 120);
    case 'VacationDataConsulted':
      return JSON.stringify(e.data.outcome).slice(0, 60);
    case 'ContractStatusChecked':
      return `${e.data.estado} activo=${e.data.activo}`;
    default:
      return JSON.stringify(e.data).slice(0, 60);
  }
}

export function registerReplay(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description("a worker's events in order, each with the state it left behind")
    .requiredOption('--documento <number>', "the worker's document number")
    .option('--as-of <time>', 'only events recorded at or before this ISO time (a bare date: the end of that day in Bogotá)')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (opts: { documento: string; asOf?: string; json?: boolean }) => {
      const asOf = opts.asOf === undefined ? undefined : parseAsOf(opts.asOf);
      await withDb(async (db, config) => {
        const worker = await new ReferenceRepository(db).workerByDocument(opts.documento);
        if (!worker) throw new CliError(`no worker with document ${opts.documento}`);
        const workerId = worker.id;
        const store = await openEventStore(config, db);
        let events: StoredEvent[];
        try {
          const [own, audit] = await Promise.all([store.readStream(workerStream(workerId)), store.readStream(auditStream(workerId))]);
          events = [...own, ...audit].sort((a, b) => comparePositions(a.position, b.position));
        } finally {
          await store.close();
        }
        if (asOf !== undefined) events = events.filter((e) => Date.parse(e.recordedAt) <= asOf);

        let state = emptyWorkerState();
        const entries = events.map((stored) => {
          const decoded = decode(stored);
          if (decoded && stored.stream === workerStream(workerId)) state = evolve(state, decoded.event);
          return { stored, decoded: decoded?.event, state: stateAfter(state) };
        });

        if (opts.json) {
          const out = entries.map(({ stored, state: s }) => ({
            position: positionToString(stored.position),
            stream: stored.stream,
            revision: stored.revision,
            type: stored.type,
            version: stored.version,
            recordedAt: stored.recordedAt,
            data: stored.data,
            metadata: stored.metadata,
            stateAfter: s,
          }));
          io.out(JSON.stringify(out, null, 2));
          return;
        }
        if (entries.length === 0) {
          io.out(`no events for worker ${workerId} (document ${opts.documento})${opts.asOf ? ` as of ${opts.asOf}` : ''}`);
          return;
        }
        const rows = entries.map(({ stored, decoded, state: s }) => {
          const m = stored.metadata as { userEmail?: string | null; requestId?: string | null };
          return [
            String(stored.revision),
            stored.stream.startsWith('audit-') ? 'audit' : 'worker',
            stored.recordedAt.replace(/\.\d+Z$/, 'Z'),
            stored.type,
            m.userEmail ?? '-',
            m.requestId ?? '-',
            keyFields(decoded, stored),
            String(s.liveRecords),
            String(s.daysTaken),
            s.vacations.filter((v) => !v.deleted).map((v) => v.codigoPila).join(',') || '-',
          ];
        });
        io.out(`worker ${workerId} (document ${opts.documento}): ${entries.length} events`);
        const headers = ['REV', 'STREAM', 'RECORDED', 'TYPE', 'WHO', 'REQUEST', 'WHAT', 'LIVE', 'DAYS', 'LIVE CODES'];
        for (const l of formatTable(headers, rows)) io.out(l);
      });
    });
}
