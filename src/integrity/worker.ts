import type { EventStore } from '../store/types.ts';
import { workerStreams } from './scope.ts';
import { verifyChains, type VerifyReport } from './verify.ts';

/**
 * A worker's streams verified: the one check behind `audit verify --documento`, the panel's
 * Verificar and GET /api/auditoria/verificar.
 */
export async function verifyWorker(store: EventStore, workerId: number): Promise<{ streams: string[]; report: VerifyReport }> {
  const streams = await workerStreams(store, workerId);
  return { streams, report: await verifyChains(store, { streams }) };
}
