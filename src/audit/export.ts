import type { Writable } from 'node:stream';
import type { Queryable } from '../db/types.ts';
import { COLUMNS, toStored, type EventRow } from '../store/postgres-store.ts';
import type { EventStore } from '../store/types.ts';
import { BundleWriter, type BundleEnd, type BundleSelection } from './bundle.ts';

/** Rows fetched at a time from the export's cursors: a few megabytes at most. */
const FETCH = 1_000;

/** The selection names nothing that exists (no such worker, no worker in that subgerencia). */
export class NothingSelectedError extends Error {
  override name = 'NothingSelectedError';
}

export interface ExportOptions {
  selection: BundleSelection;
  /** Epoch milliseconds: each stream is cut before its first event recorded later. */
  asOf?: number;
  now?: Date;
  onProgress?: (p: { done: number; total: number }) => void;
}

/** Whether the events are where an export reads them: the events table. */
export const canExport = (store: EventStore): boolean => store.logDatabase() !== undefined;

/**
 * Writes the bundle of a selection (bundle.ts) to `out`, read from the events table through
 * cursors in one REPEATABLE READ transaction: every stream as of one moment, fetched a thousand
 * rows at a time, whatever the number of events. Streams come in the byte order of their names
 * (the database sorts them, spilling to disk if it must); a worker's streams are its vacation
 * and audit streams and the stream of every PILA code its vacations name (as `audit verify
 * --documento`); a subgerencia's are those of every worker with a contract in it, and its
 * occupancy streams (`unit-<subgerencia>-<month>`).
 *
 * Needs the events in the database (PostgreSQL or PGlite); on PGlite the transaction holds its
 * one connection until the bundle is written.
 */
export async function exportBundle(store: EventStore, out: Writable, opts: ExportOptions): Promise<BundleEnd> {
  const db = store.logDatabase();
  if (!db) throw new Error('an audit bundle is read from the events table: it needs the PostgreSQL or PGlite event store');
  const { selection } = opts;
  return db.transaction(async (tx) => {
    // One snapshot for everything read below: the heads and the counts of one moment.
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const all = selection.kind === 'all';
    if (!all) await selectStreams(tx, selection);

    const total = Number(
      (
        await tx.query<{ n: string }>(
          all
            ? 'SELECT count(*)::text AS n FROM events'
            : 'SELECT count(*)::text AS n FROM events e JOIN export_streams s ON s.stream = e.stream',
        )
      ).rows[0]!.n,
    );
    const writer = new BundleWriter(out, {
      exportedAt: (opts.now ?? new Date()).toISOString(),
      selection,
      asOf: opts.asOf === undefined ? null : new Date(opts.asOf).toISOString(),
    });
    try {
      await tx.query(
        `DECLARE export_workers_cursor NO SCROLL CURSOR FOR
           SELECT w.id::text AS id, w.document_type, w.document_number FROM ref_workers w
           ${all ? '' : 'JOIN export_workers x ON x.id = w.id'} ORDER BY w.id`,
      );
      for (;;) {
        const rows = (
          await tx.query<{ id: string; document_type: string; document_number: string }>(`FETCH ${FETCH} FROM export_workers_cursor`)
        ).rows;
        for (const r of rows) await writer.worker({ id: Number(r.id), documentType: r.document_type, documentNumber: r.document_number });
        if (rows.length < FETCH) break;
      }

      await tx.query(
        `DECLARE export_events_cursor NO SCROLL CURSOR FOR
           SELECT ${COLUMNS} FROM events ${all ? '' : 'JOIN export_streams s ON s.stream = events.stream'}
           ORDER BY events.stream COLLATE "C", events.revision`,
      );
      let done = 0;
      /** A stream cut by --as-of: its later events are skipped. */
      let cut: string | undefined;
      for (;;) {
        const rows = (await tx.query<EventRow>(`FETCH ${FETCH} FROM export_events_cursor`)).rows;
        for (const r of rows) {
          done++;
          if (r.stream === cut) continue;
          if (opts.asOf !== undefined && Date.parse(r.recorded_at) > opts.asOf) {
            cut = r.stream;
            continue;
          }
          await writer.event(toStored(r));
        }
        opts.onProgress?.({ done, total: Math.max(done, total) });
        if (rows.length < FETCH) break;
      }
      return await writer.end();
    } catch (err) {
      writer.abort(err as Error);
      throw err;
    }
  });
}

/** Fills the transaction's `export_workers` and `export_streams` with what the selection names. */
async function selectStreams(tx: Queryable, selection: Exclude<BundleSelection, { kind: 'all' }>): Promise<void> {
  await tx.exec(
    `CREATE TEMP TABLE export_workers (id bigint PRIMARY KEY) ON COMMIT DROP;
     CREATE TEMP TABLE export_streams (stream text PRIMARY KEY) ON COMMIT DROP;`,
  );
  if (selection.kind === 'documento') {
    const found = await tx.query('INSERT INTO export_workers (id) SELECT id FROM ref_workers WHERE document_number = $1', [
      selection.documento,
    ]);
    if (found.rowCount === 0) throw new NothingSelectedError(`no worker with document ${selection.documento}`);
  } else {
    const known = await tx.query('SELECT 1 FROM ref_subgerencias WHERE id = $1', [selection.subgerencia]);
    if (known.rows.length === 0) throw new NothingSelectedError(`no subgerencia ${selection.subgerencia}`);
    await tx.query('INSERT INTO export_workers (id) SELECT DISTINCT worker_id FROM ref_contracts WHERE subgerencia_id = $1', [
      selection.subgerencia,
    ]);
  }
  await tx.query(
    `INSERT INTO export_streams (stream)
       SELECT 'worker-' || id FROM export_workers
       UNION SELECT 'audit-worker-' || id FROM export_workers
       UNION SELECT 'pila-' || c.code FROM export_workers w
               JOIN events e ON e.stream = 'worker-' || w.id
               CROSS JOIN LATERAL (VALUES (e.data->>'codigoPila'), (e.data->>'newCodigoPila')) c(code)
              WHERE c.code IS NOT NULL`,
  );
  if (selection.kind === 'subgerencia') {
    await tx.query(
      `INSERT INTO export_streams (stream)
         SELECT stream FROM streams WHERE left(stream, length($1)) = $1 AND substr(stream, length($1) + 1) ~ '^\\d{4}-\\d{2}$'
         ON CONFLICT DO NOTHING`,
      [`unit-${selection.subgerencia}-`],
    );
  }
}
