import type { Queryable } from '../db/types.ts';
import { auditStream, pilaStream, workerStream } from '../events/streams.ts';
import { ReferenceRepository } from '../reference/repository.ts';
import type { EventStore } from '../store/types.ts';

/** The worker a document number names, or undefined. */
export async function workerOf(db: Queryable, documentNumber: string): Promise<number | undefined> {
  return (await new ReferenceRepository(db).workerByDocument(documentNumber))?.id;
}

/**
 * A worker's own streams: its vacation stream, its audit stream, and the stream of every PILA
 * code its vacation events name (the month streams of a subgerencia are shared by its workers).
 */
export async function workerStreams(store: EventStore, workerId: number): Promise<string[]> {
  const codes = new Set<string>();
  for (const e of await store.readStream(workerStream(workerId))) {
    for (const key of ['codigoPila', 'newCodigoPila']) {
      const code = e.data[key];
      if (typeof code === 'string') codes.add(code);
    }
  }
  return [workerStream(workerId), auditStream(workerId), ...[...codes].sort().map(pilaStream)];
}
