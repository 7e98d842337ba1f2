import type { Queryable } from '../db/types.ts';
import { STAGE, VACATION_COLUMNS } from './import-tables.ts';

/** A vacation recorded before this service existed, in the service's own vocabulary. */
export interface HistoricVacation {
  pilaCode: string;
  workerId: number;
  startDate: string;
  days: number;
  worksSaturday: boolean;
  compensated: boolean;
  paid: boolean;
  approved: boolean;
}

export interface HistoricCounts {
  imported: number;
  skipped: number;
}

/** A chunk's events, built, and how to write them. */
export interface HistoricBatch extends HistoricCounts {
  write(): Promise<void>;
}

/**
 * Turns historic vacation rows into whatever records them (events). Runs inside the import's
 * transaction, after the reference rows are written, so a failure undoes the whole import; it is
 * handed the rows a few thousand at a time, in file order, and its counts are added up. It may do
 * the work itself and answer its counts, or read what it needs and answer how to build the rest:
 * then the import reads the next chunk before writing this one, and builds the next while the
 * database writes this one. A build should yield to the event loop now and then, so that the
 * write's statements go out as soon as the one before them is answered.
 */
export type HistoricHandler = (tx: Queryable, rows: HistoricVacation[]) => Promise<HistoricCounts | { build(): Promise<HistoricBatch> }>;

interface StagedVacation {
  codigo_pila: string;
  worker_id: string;
  start_date: string;
  days: number;
  works_saturday: boolean;
  compensated: boolean;
  paid: boolean;
  approved: boolean;
}

function toHistoric(r: StagedVacation): HistoricVacation {
  return {
    pilaCode: r.codigo_pila,
    workerId: Number(r.worker_id),
    startDate: r.start_date,
    days: Number(r.days),
    worksSaturday: r.works_saturday,
    compensated: r.compensated,
    paid: r.paid,
    approved: r.approved,
  };
}

/** Historic vacations handed to the handler at a time, each time in the import's transaction. */
const HISTORIC_CHUNK = 5000;

/** The staged vacations, in file order, handed to the handler a chunk at a time. */
export async function importHistoric(
  conn: Queryable,
  handler: HistoricHandler,
  total: number,
  onProgress: ((p: { phase: 'historic'; done: number; total: number }) => void) | undefined,
): Promise<HistoricCounts> {
  const counts = { imported: 0, skipped: 0 };
  const columns = VACATION_COLUMNS.map((c) => c.name).join(', ');
  // A cursor of the transaction reads the stage once, whatever is written between its fetches.
  await conn.query(`DECLARE import_vacations_cursor NO SCROLL CURSOR FOR SELECT ${columns} FROM ${STAGE.vacaciones.name} ORDER BY idx`);
  const next = async () => {
    const rows = (await conn.query<StagedVacation>(`FETCH ${HISTORIC_CHUNK} FROM import_vacations_cursor`)).rows;
    return rows.length === 0 ? undefined : handler(conn, rows.map(toHistoric));
  };
  const built = async (step: Awaited<ReturnType<HistoricHandler>> | undefined): Promise<HistoricBatch | undefined> =>
    step === undefined ? undefined : 'build' in step ? step.build() : { ...step, write: async () => {} };
  let batch = await built(await next());
  while (batch) {
    const following = await next();
    // Sent before the next chunk is built: the database writes one while this process builds the other.
    const writing = batch.write();
    writing.catch(() => {});
    const after = built(following);
    after.catch(() => {});
    await writing;
    counts.imported += batch.imported;
    counts.skipped += batch.skipped;
    onProgress?.({ phase: 'historic', done: counts.imported + counts.skipped, total });
    batch = await after;
  }
  await conn.query('CLOSE import_vacations_cursor');
  return counts;
}
