import type { Writable } from 'node:stream';
import { unitStream, workerStream } from '../events/streams.ts';
import { ReferenceRepository, type Worker } from '../reference/repository.ts';
import { auditLogOf, type EventsQuery, type LogSnapshot } from '../store/audit-log.ts';
import type { EventStore } from '../store/types.ts';
import { BundleWriter, type BundleEnd, type BundleSelection } from './bundle.ts';
import { streamsOfWorker } from './scope.ts';

/** Workers read at a time, with their vacation streams (for the streams of their PILA codes). */
const WORKERS_PAGE = 250;
/** Events between two reports of progress. */
const PROGRESS_EVERY = 1_000;

/** The selection names nothing that exists (no such worker, no such subgerencia). */
export class NothingSelectedError extends Error {
  override name = 'NothingSelectedError';
}

/** The store keeps its events where a bundle cannot be read from (KurrentDB). */
export class ExportUnsupportedError extends Error {
  override name = 'ExportUnsupportedError';
}

export interface ExportOptions {
  selection: BundleSelection;
  /** Epoch milliseconds: each stream up to its last event recorded at or before it (see streamAsOf). */
  asOf?: number;
  now?: Date;
  onProgress?: (p: { done: number; total: number }) => void;
}

/** Whether the store can give a bundle: its log is kept where the audit reads it in place. */
export const canExport = (store: EventStore): boolean => auditLogOf(store) !== undefined;

/**
 * Writes the bundle of a selection (bundle.ts) to `out`, read from one snapshot of the log (every
 * stream as of one moment, the reference data too) a page at a time, whatever the number of
 * events or workers. Streams come in the byte order of their names; a worker's streams are its
 * vacation and audit streams and the stream of every PILA code its vacations name (as `audit
 * verify --documento`); a subgerencia's are those of every worker with a contract in it, and its
 * occupancy streams (`unit-<subgerencia>-<month>`).
 *
 * Needs a store whose log is kept in a database (PostgreSQL or PGlite); on PGlite the snapshot
 * holds its one connection until the bundle is written.
 */
export async function exportBundle(store: EventStore, out: Writable, opts: ExportOptions): Promise<BundleEnd> {
  const log = auditLogOf(store);
  if (!log) throw new ExportUnsupportedError('audit bundles are read from the events table: this store keeps its events in KurrentDB');
  const { selection } = opts;
  return log.snapshot(async (s) => {
    const reference = new ReferenceRepository(s.tx);
    // Checked before a byte is written: a refused export leaves nothing behind.
    const pages = await workerPages(reference, selection);
    const writer = new BundleWriter(out, {
      exportedAt: (opts.now ?? new Date()).toISOString(),
      selection,
      asOf: opts.asOf === undefined ? null : new Date(opts.asOf).toISOString(),
    });
    try {
      for await (const page of pages) {
        for (const w of page) await writer.worker({ id: w.id, documentType: w.documentType, documentNumber: w.documentNumber });
        if (selection.kind !== 'all') await selectWorkerStreams(s, page);
      }
      if (selection.kind === 'subgerencia') await s.select(await occupancyStreams(s, selection.subgerencia));
      const query: EventsQuery = { which: selection.kind === 'all' ? 'all' : 'selected', asOf: opts.asOf };
      const total = await s.count(query);
      let done = 0;
      await s.events(query, async (e) => {
        await writer.event(e);
        if (++done % PROGRESS_EVERY === 0) opts.onProgress?.({ done, total: Math.max(done, total) });
      });
      opts.onProgress?.({ done, total: Math.max(done, total) });
      return await writer.end();
    } catch (err) {
      writer.abort(err as Error);
      throw err;
    }
  });
}

/** The selected workers, a page at a time by id; refuses a selection that names nothing. */
async function workerPages(reference: ReferenceRepository, selection: BundleSelection): Promise<AsyncIterable<Worker[]>> {
  if (selection.kind === 'documento') {
    const worker = await reference.workerByDocument(selection.documento);
    if (!worker) throw new NothingSelectedError(`no worker with document ${selection.documento}`);
    return (async function* () {
      yield [worker];
    })();
  }
  const subgerencia = selection.kind === 'subgerencia' ? selection.subgerencia : undefined;
  if (subgerencia !== undefined && !(await reference.subgerenciaExists(subgerencia)))
    throw new NothingSelectedError(`no subgerencia ${subgerencia}`);
  return (async function* () {
    for (let after = 0; ;) {
      const page = await reference.workersPage({ after, limit: WORKERS_PAGE, subgerencia });
      if (page.length > 0) yield page;
      if (page.length < WORKERS_PAGE) return;
      after = page.at(-1)!.id;
    }
  })();
}

/** Selects the streams of a page of workers, read from their vacation streams as of the snapshot. */
async function selectWorkerStreams(s: LogSnapshot, workers: Worker[]): Promise<void> {
  const own = await s.readStreams(workers.map((w) => workerStream(w.id)));
  await s.select(workers.flatMap((w) => streamsOfWorker(w.id, own.get(workerStream(w.id)) ?? [])));
}

/** A subgerencia's occupancy streams: `unit-<subgerencia>-<YYYY-MM>` (not those of a subgerencia whose id it begins). */
async function occupancyStreams(s: LogSnapshot, subgerencia: string): Promise<string[]> {
  const prefix = unitStream(subgerencia, '');
  return (await s.streamsNamed(prefix)).filter((name) => /^\d{4}-\d{2}$/.test(name.slice(prefix.length)));
}
