import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { BundleReadError, readBundle, storedEvent, type ReadRecord } from '../../integrity/bundle.ts';
import { ChainChecker, describeBreak } from '../../integrity/chain-check.ts';
import { carriesDigest } from '../../integrity/bundle-verify.ts';
import { asOfTime } from '../../integrity/as-of.ts';
import { replayOrder } from '../../integrity/replay-order.ts';
import { workerOf } from '../../integrity/scope.ts';
import { emptyWorkerState, evolve, type WorkerState } from '../../events/worker-state.ts';
import { decode } from '../../events/codec.ts';
import { auditStream, workerStream } from '../../events/streams.ts';
import type { DomainEvent } from '../../events/types.ts';
import { bogotaTimestamp } from '../../domain/dates.ts';
import { openEventStore } from '../../store/open.ts';
import { positionToString, type StoredEvent } from '../../store/types.ts';
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

/** `--as-of` as epoch milliseconds (see asOfTime). */
export function parseAsOf(s: string): number {
  const t = asOfTime(s);
  if (t === undefined) throw new CliError(`--as-of ${s} is not an ISO time or a date as YYYY-MM-DD`);
  return t;
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
const recordNamed = (id: number | null) => (id === null ? '' : ` (record ${id})`);

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
      return (
        `${e.data.codigoPila} interrupted on ${e.data.interruptedOn} (${e.data.reason}): ` +
        `${e.data.businessDays}d kept, ${e.data.daysReturned}d returned`
      );
    case 'VacationEditStarted':
      return `${e.data.codigoPila} -> ${e.data.newCodigoPila} (record ${e.data.newRecordId})`;
    case 'VacationEditFailed':
      return `${e.data.codigoPila} ${e.data.reason}${recordNamed(e.data.newRecordId)}: ${e.data.detail.join('; ')}`.slice(0, 120);
    case 'VacationDataConsulted':
      return JSON.stringify(e.data.outcome).slice(0, 60);
    case 'ContractStatusChecked':
      return `${e.data.estado} activo=${e.data.activo}`;
    default:
      return JSON.stringify(e.data).slice(0, 60);
  }
}

/** Where a replay reads a worker's events: the live store, or an audit bundle. */
export interface ReplaySource {
  /** The worker a document number names, with the events of its vacation and audit streams; undefined when none. */
  workerEvents(documento: string): Promise<{ workerId: number; events: StoredEvent[] } | undefined>;
}

/** The configured database and event store. */
export function liveSource(): ReplaySource {
  return {
    workerEvents: (documento) =>
      withDb(async (db, config) => {
        const workerId = await workerOf(db, documento);
        if (workerId === undefined) return undefined;
        const store = await openEventStore(config, db);
        try {
          const [own, audit] = await Promise.all([store.readStream(workerStream(workerId)), store.readStream(auditStream(workerId))]);
          return { workerId, events: [...own, ...audit] };
        } finally {
          await store.close();
        }
      }),
  };
}

/** A bundle file to read, or a one-line failure when there is none to read. */
export async function openBundleFile(file: string): Promise<Readable> {
  try {
    await access(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${(err as Error).message}`);
  }
  return createReadStream(file);
}

/**
 * An audit bundle read from a file, with no database: the worker's record names its id, and its
 * two streams are taken as they pass. Their chains are checked on the way, each stream's events
 * must come together, and the bundle must end with its end record and the digest of its lines (a
 * bundle changed after it was written, or cut short, replays nothing); the whole bundle, and what
 * was kept from its export, are checked by `audit verify --bundle`.
 */
export function bundleSource(file: string): ReplaySource {
  const refuse = (why: string) => new CliError(`the bundle does not hold: ${why}: run audit verify --bundle ${file}`);
  return {
    async workerEvents(documento) {
      let workerId: number | undefined;
      let streams: string[] = [];
      const events: StoredEvent[] = [];
      const checker = new ChainChecker();
      /** The worker's stream whose events are being read, and those already read to their end. */
      let reading: string | undefined;
      const ended = new Set<string>();
      let end: ReadRecord | undefined;
      let digested = true;
      try {
        for await (const r of readBundle(await openBundleFile(file))) {
          if (reading !== undefined && !(r.record === 'event' && r.stream === reading)) {
            ended.add(reading);
            reading = undefined;
          }
          if (r.record === 'manifest') digested = carriesDigest(r);
          if (r.record === 'worker' && r.documentNumber === documento) {
            workerId = r.id;
            streams = [workerStream(r.id), auditStream(r.id)];
          } else if (r.record === 'event' && streams.includes(r.stream)) {
            if (ended.has(r.stream)) throw refuse(`the events of stream ${r.stream} do not come together`);
            reading = r.stream;
            checker.check(r);
            events.push(storedEvent(r));
          } else if (r.record === 'head' && streams.includes(r.stream)) {
            const seen = checker.head(r.stream);
            if (seen.revision !== r.revision || seen.hash !== r.hash)
              throw new CliError(`the bundle's head of stream ${r.stream} does not match its events: run audit verify --bundle`);
          } else if (r.record === 'end') {
            end = r;
          }
        }
      } catch (err) {
        if (err instanceof BundleReadError) throw new CliError(`${file}: ${err.message}`);
        throw err;
      }
      if (checker.breaks.length > 0) throw new CliError(`the bundle's hash chain is broken: ${describeBreak(checker.breaks[0]!)}`);
      if (end?.record !== 'end') throw refuse('it ends without its end record');
      if (digested && end.digest !== end.digestBefore) throw refuse('its lines do not hash to the digest of its end record');
      return workerId === undefined ? undefined : { workerId, events };
    },
  };
}

export interface ReplayOptions {
  documento: string;
  asOf?: string;
  json?: boolean;
}

/** Prints a worker's replay, the same whichever source the events come from. */
export async function replay(io: CliIo, source: ReplaySource, opts: ReplayOptions): Promise<void> {
  const asOf = opts.asOf === undefined ? undefined : parseAsOf(opts.asOf);
  const found = await source.workerEvents(opts.documento);
  if (!found) throw new CliError(`no worker with document ${opts.documento}`);
  const { workerId } = found;
  const events = replayOrder(found.events, asOf);

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
    return {
      REV: String(stored.revision),
      STREAM: stored.stream.startsWith('audit-') ? 'audit' : 'worker',
      'RECORDED (BOGOTA)': bogotaTimestamp(new Date(stored.recordedAt)),
      EVENT: EVENT_NAMES[stored.type] ?? stored.type,
      WHO: m.userEmail ?? '-',
      REQUEST: m.requestId ?? '-',
      LIVE: String(s.liveRecords),
      DAYS: String(s.daysTaken),
      WHAT: keyFields(decoded, stored),
      'LIVE CODES':
        s.vacations
          .filter((v) => !v.deleted)
          .map((v) => v.codigoPila)
          .join(',') || '-',
    };
  });
  io.out(`worker ${workerId} (document ${opts.documento}): ${entries.length} events`);
  // On a terminal, the columns a person reads, each line cut to its width (the request ids and
  // the codes are in --json); to a pipe or a file, every column whole.
  const headers = io.columns === undefined ? [...COLUMNS] : COLUMNS.filter((c) => c !== 'REQUEST' && c !== 'LIVE CODES');
  const lines = formatTable(
    headers,
    rows.map((r) => headers.map((h) => r[h])),
  );
  for (const l of lines) io.out(io.columns !== undefined && l.length > io.columns ? `${l.slice(0, io.columns - 1)}…` : l);
}

const COLUMNS = ['REV', 'STREAM', 'RECORDED (BOGOTA)', 'EVENT', 'WHO', 'REQUEST', 'LIVE', 'DAYS', 'WHAT', 'LIVE CODES'] as const;

/** The events' names as the people who read a replay say them. */
const EVENT_NAMES: Record<string, string> = {
  VacationCreated: 'registro',
  VacationImported: 'importación',
  VacationApproved: 'aprobación',
  VacationDeleted: 'eliminación',
  VacationInterrupted: 'interrupción',
  VacationEditStarted: 'edición iniciada',
  VacationEditFailed: 'edición fallida',
  VacationDataConsulted: 'consulta de datos',
  ContractStatusChecked: 'verificación de contrato',
  PilaCodeAssigned: 'código PILA asignado',
  SlotsBooked: 'cupos reservados',
  SlotsReleased: 'cupos liberados',
};

export function registerReplay(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description("a worker's events in order, each with the state it left behind")
    .requiredOption('--documento <number>', "the worker's document number")
    .option(
      '--as-of <time>',
      'each stream up to its last event recorded at or before this ISO time (a bare date: the end of that day in Bogotá)',
    )
    .option('--bundle <file>', 'read an audit bundle (audit export) instead of the database: works with no database')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (opts: ReplayOptions & { bundle?: string }) => {
      await replay(io, opts.bundle === undefined ? liveSource() : bundleSource(opts.bundle), opts);
    });
}
