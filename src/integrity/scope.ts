import type { Queryable } from '../db/types.ts';
import { auditStream, pilaStream, workerStream } from '../events/streams.ts';
import { ReferenceRepository } from '../reference/repository.ts';
import type { EventStore, StoredEvent } from '../store/types.ts';

/** The worker a document number names, or undefined. */
export async function workerOf(db: Queryable, documentNumber: string): Promise<number | undefined> {
  return (await new ReferenceRepository(db).workerByDocument(documentNumber))?.id;
}

/**
 * A worker's own streams: its vacation stream, its audit stream, and the stream of every PILA
 * code its vacation events name (the month streams of a subgerencia are shared by its workers).
 */
export async function workerStreams(store: Pick<EventStore, 'readStream'>, workerId: number): Promise<string[]> {
  return streamsOfWorker(workerId, await store.readStream(workerStream(workerId)));
}

/** A worker's own streams (see workerStreams), from the events of its vacation stream. */
export function streamsOfWorker(workerId: number, vacationEvents: StoredEvent[]): string[] {
  const codes = new Set<string>();
  for (const e of vacationEvents) {
    for (const key of ['codigoPila', 'newCodigoPila']) {
      const code = e.data[key];
      if (typeof code === 'string') codes.add(code);
    }
  }
  return [workerStream(workerId), auditStream(workerId), ...[...codes].sort().map(pilaStream)];
}
