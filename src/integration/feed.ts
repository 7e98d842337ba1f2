import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import type { Amortization } from '../domain/index.ts';
import { decode, type DecodedEvent } from '../events/codec.ts';
import { workerIdOfStream } from '../events/streams.ts';
import { collectiveClosureScheduledSchema } from '../events/types.ts';
import { evolveRecord } from '../projections/vacations/projector.ts';
import { toView, type VacationView } from '../projections/vacations/queries.ts';
import { shownVacations, type ContractsOf, type ShownVacation } from '../projections/vacations/shown.ts';
import { START, type EventStore, type Position, type StoredEvent } from '../store/types.ts';

/**
 * The business events of the log as CloudEvents 1.0 (structured JSON), for payroll systems that
 * keep in step: what was created, edited, approved, deleted, interrupted or imported, in log
 * order, each with the record as the API shows it right after the event. Consults, contract
 * checks, PILA codes, places booked and the audit of failed edits are not business events here.
 */

export const CLOUD_EVENT_SOURCE = '/api/vacaciones';

/** Most events one call of the feed gives, and longest it waits for one (seconds). */
export const FEED_MAX_LIMIT = 1000;
export const FEED_MAX_WAIT_S = 30;

/** The CloudEvents `type` of each business event. */
export type FeedType =
  | 'co.vacaciones.vacacion.creada'
  | 'co.vacaciones.vacacion.editada'
  | 'co.vacaciones.vacacion.aprobada'
  | 'co.vacaciones.vacacion.eliminada'
  | 'co.vacaciones.vacacion.reemplazada'
  | 'co.vacaciones.vacacion.interrumpida'
  | 'co.vacaciones.vacacion.importada'
  | 'co.vacaciones.colectiva.programada';

export const FEED_TYPES: readonly FeedType[] = [
  'co.vacaciones.vacacion.creada',
  'co.vacaciones.vacacion.editada',
  'co.vacaciones.vacacion.aprobada',
  'co.vacaciones.vacacion.eliminada',
  'co.vacaciones.vacacion.reemplazada',
  'co.vacaciones.vacacion.interrumpida',
  'co.vacaciones.vacacion.importada',
  'co.vacaciones.colectiva.programada',
];

const RECORD_EVENTS = new Set(['VacationCreated', 'VacationImported', 'VacationApproved', 'VacationDeleted', 'VacationInterrupted']);

/**
 * The type of a stored event, or undefined when it is no business event. An edit is one append
 * that deletes the old record (reemplazada) and creates the new one (editada).
 */
export function feedTypeOf(e: Pick<StoredEvent, 'type' | 'data'>): FeedType | undefined {
  switch (e.type) {
    case 'VacationCreated':
      return e.data.replaces ? 'co.vacaciones.vacacion.editada' : 'co.vacaciones.vacacion.creada';
    case 'VacationImported':
      return 'co.vacaciones.vacacion.importada';
    case 'VacationApproved':
      return 'co.vacaciones.vacacion.aprobada';
    case 'VacationDeleted':
      return e.data.reason === 'edit' ? 'co.vacaciones.vacacion.reemplazada' : 'co.vacaciones.vacacion.eliminada';
    case 'VacationInterrupted':
      return 'co.vacaciones.vacacion.interrumpida';
    case 'CollectiveClosureScheduled':
      return 'co.vacaciones.colectiva.programada';
    default:
      return undefined;
  }
}

interface CloudEventHead {
  specversion: '1.0';
  id: string;
  source: string;
  time: string;
  datacontenttype: 'application/json';
}

/** A record's event: its subject is the worker's document number. */
export interface RecordCloudEvent extends CloudEventHead {
  type: Exclude<FeedType, 'co.vacaciones.colectiva.programada'>;
  subject: string;
  /** The record's PILA code (a CloudEvents extension attribute). */
  codigopila: string;
  data: ShownVacation;
}

/**
 * A collective closure booked: one decision, its subject the closure's id. Each record it booked
 * comes as its own `vacacion.creada` too, so a consumer that follows records needs nothing more.
 */
export interface ClosureCloudEvent extends CloudEventHead {
  type: 'co.vacaciones.colectiva.programada';
  subject: string;
  data: ClosureFeedData;
}

export interface ClosureFeedData {
  idColectiva: string;
  subgerencias: string[];
  contratoEmpresaId: number | null;
  fechaInicio: string;
  dias: number;
  laboraSabado: '0' | '1';
  codigos: string[];
  excluidos: { documentoAsociado: string; motivo: string }[];
}

export type CloudEvent = RecordCloudEvent | ClosureCloudEvent;

function closureCloudEvent(e: StoredEvent): ClosureCloudEvent {
  const d = collectiveClosureScheduledSchema.parse(e.data);
  return {
    specversion: '1.0',
    id: e.id,
    source: CLOUD_EVENT_SOURCE,
    type: 'co.vacaciones.colectiva.programada',
    subject: d.closureId,
    time: timeOf(e),
    datacontenttype: 'application/json',
    data: {
      idColectiva: d.closureId,
      subgerencias: d.scope.subgerenciaIds,
      contratoEmpresaId: d.scope.companyContractId,
      fechaInicio: d.startDate,
      dias: d.businessDays,
      laboraSabado: d.worksSaturday ? '1' : '0',
      codigos: d.records.map((r) => r.codigoPila),
      excluidos: d.excluded.map((x) => ({ documentoAsociado: x.documentNumber, motivo: x.reason })),
    },
  };
}

export interface FeedPage {
  events: CloudEvent[];
  /** The log position of each event, in the same order. */
  positions: Position[];
  /** Where the next read starts: after the last event given, or after all that was looked at. */
  next: Position;
}

/** Events looked at per read of the log; a call looks at most at FEED_SCAN_READS of them. */
const READ_SIZE = 1000;
const FEED_SCAN_READS = 20;

/**
 * The record `code` as the API shows it right after the event at `revision` of its worker's
 * stream: the vacations read model's fold over the code's events up to there, with the plan of the
 * latest event that set one.
 */
function recordAt(stream: readonly DecodedEvent[], code: string, revision: number): VacationView | undefined {
  const mine = stream.filter((e) => e.stored.revision <= revision && (e.event.data as { codigoPila?: string }).codigoPila === code);
  const row = evolveRecord(undefined, mine);
  if (!row) return undefined;
  let plan: Amortization[] = [];
  for (const { event } of mine) {
    if (event.type === 'VacationCreated' || event.type === 'VacationImported' || event.type === 'VacationInterrupted')
      plan = event.data.amortizations;
  }
  return toView(
    row,
    [...plan].sort((a, b) => (a.periodo < b.periodo ? -1 : a.periodo > b.periodo ? 1 : 0)),
  );
}

const isClosureEvent = (e: Pick<StoredEvent, 'type'>) => e.type === 'CollectiveClosureScheduled';

function timeOf(e: StoredEvent): string {
  const at = Date.parse(String(e.metadata.occurredAt ?? ''));
  return Number.isNaN(at) ? new Date(e.recordedAt).toISOString() : new Date(at).toISOString();
}

/** The business events among `events`, as CloudEvents, reading each worker's stream once. */
async function cloudEventsOf(store: EventStore, events: readonly StoredEvent[], contractsOf: ContractsOf): Promise<Omit<FeedPage, 'next'>> {
  const streams = [...new Set(events.filter((e) => !isClosureEvent(e)).map((e) => e.stream))];
  const read = await store.readStreams(streams.map((stream) => ({ stream, fromRevision: 0 })));
  const decoded = new Map(
    [...read].map(([stream, list]) => [
      stream,
      list.map(decode).filter((d): d is DecodedEvent => d !== undefined && RECORD_EVENTS.has(d.event.type)),
    ]),
  );
  const found: { e: StoredEvent; code: string; view: VacationView }[] = [];
  for (const e of events) {
    if (isClosureEvent(e)) continue;
    const code = String(e.data.codigoPila);
    const view = recordAt(decoded.get(e.stream) ?? [], code, e.revision);
    if (view) found.push({ e, code, view });
  }
  const shown = await shownVacations(
    found.map((f) => f.view),
    contractsOf,
  );
  const byId = new Map<string, CloudEvent>();
  for (const [i, { e, code }] of found.entries()) {
    const data = shown[i]!;
    byId.set(e.id, {
      specversion: '1.0',
      id: e.id,
      source: CLOUD_EVENT_SOURCE,
      type: feedTypeOf(e) as RecordCloudEvent['type'],
      subject: data.documentNumber,
      time: timeOf(e),
      datacontenttype: 'application/json',
      codigopila: code,
      data,
    });
  }
  const out: CloudEvent[] = [];
  const positions: Position[] = [];
  for (const e of events) {
    const c = isClosureEvent(e) ? closureCloudEvent(e) : byId.get(e.id);
    if (!c) continue;
    out.push(c);
    positions.push(e.position);
  }
  return { events: out, positions };
}

/**
 * Up to `limit` business events after `after`, in log order. The log is looked at a thousand
 * events at a time, up to a bound: a stretch of the log with none (consults, mostly) moves the
 * cursor on without an answer waiting for all of it.
 */
export async function readFeed(store: EventStore, after: Position, limit: number, contractsOf: ContractsOf): Promise<FeedPage> {
  const chosen: StoredEvent[] = [];
  let next = after;
  for (let reads = 0; reads < FEED_SCAN_READS && chosen.length < limit; reads++) {
    const batch = await store.readAll({ after: next, limit: READ_SIZE });
    for (const e of batch) {
      if (feedTypeOf(e) !== undefined && (workerIdOfStream(e.stream) !== undefined || isClosureEvent(e))) chosen.push(e);
      next = e.position;
      if (chosen.length === limit) break;
    }
    if (batch.length < READ_SIZE) break;
  }
  return { ...(await cloudEventsOf(store, chosen, contractsOf)), next };
}

/**
 * What binds a cursor to its database: a digest of the id of the log's first event, which no
 * other database shares (ids are random UUIDs); '0' while the log is empty.
 */
export async function logTag(store: EventStore): Promise<string> {
  const known = tags.get(store);
  if (known) return known;
  const [first] = await store.readAll({ after: START, limit: 1 });
  if (!first) return '0';
  const tag = createHash('sha256').update(first.id).digest('hex').slice(0, 16);
  tags.set(store, tag);
  return tag;
}

/** A log's first event never changes once read: its tag is read once per store. */
const tags = new WeakMap<EventStore, string>();

export type CursorProblem = 'malformed' | 'otherDatabase';

/** What a cursor is bound to and signed with: the log's tag and this database's cursor key. */
export interface CursorKey {
  tag: string;
  secret: string;
}

/** The cursor key, made once per database and kept for every instance (migration 50). */
async function cursorSecret(db: Queryable): Promise<string> {
  const known = secrets.get(db);
  if (known) return known;
  await db.query('INSERT INTO feed_settings (id, cursor_secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
    randomBytes(32).toString('base64url'),
  ]);
  const r = await db.query<{ cursor_secret: string }>('SELECT cursor_secret FROM feed_settings WHERE id = 1');
  const secret = r.rows[0]!.cursor_secret;
  secrets.set(db, secret);
  return secret;
}

const secrets = new WeakMap<Queryable, string>();

/** The key cursors of this database are made and checked with. */
export async function cursorKeyOf(db: Queryable, store: EventStore): Promise<CursorKey> {
  const [tag, secret] = await Promise.all([logTag(store), cursorSecret(db)]);
  return { tag, secret };
}

/** Positions are PostgreSQL bigints: a larger one names no place in the log. */
const MAX_POSITION = 2n ** 63n - 1n;

const fieldsOf = (tag: string, p: Position) => `ev2.${tag}.${p.commit}.${p.prepare}`;
const macOf = (secret: string, fields: string) => createHmac('sha256', secret).update(fields).digest().subarray(0, 16);

/** The cursor after `p`: its fields and their HMAC with the database's key, as one opaque token. */
export const cursorOf = (key: CursorKey, p: Position): string => {
  const fields = fieldsOf(key.tag, p);
  return Buffer.from(`${fields}.${macOf(key.secret, fields).toString('base64url')}`).toString('base64url');
};

/**
 * The position a cursor names, or why it names none in this database. A cursor whose fields do
 * not match its HMAC was altered (or made before cursors were signed, `ev1.`, which anyone could
 * write): it is malformed. One of another database cannot be checked with this key and is told
 * apart by its tag.
 */
export function positionOfCursor(cursor: string, key: CursorKey): Position | CursorProblem {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const m = /^(ev2\.([0-9a-f]{16}|0)\.(\d{1,19})\.(\d{1,19}))\.([A-Za-z0-9_-]{22})$/.exec(text);
  if (!m || Buffer.from(text).toString('base64url') !== cursor) return 'malformed';
  const p = { commit: BigInt(m[3]!), prepare: BigInt(m[4]!) };
  if (p.commit > MAX_POSITION || p.prepare > MAX_POSITION || fieldsOf(m[2]!, p) !== m[1]) return 'malformed';
  if (m[2] !== '0' && m[2] !== key.tag) return 'otherDatabase';
  const mac = Buffer.from(m[5]!, 'base64url');
  const expected = macOf(key.secret, m[1]!);
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return 'malformed';
  // A cursor given while the log was empty can only name its start.
  if (m[2] === '0') return p.commit === 0n && p.prepare === 0n ? p : 'otherDatabase';
  return p;
}
