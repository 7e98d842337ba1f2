import type { Db } from '../db/types.ts';
import type { EventStore } from '../store/types.ts';
import type { ChainBreak } from './chain-check.ts';
import { workerStreams } from './scope.ts';
import { verifyChains, type VerifyReport } from './verify.ts';

/**
 * A worker's streams verified: the one check behind `audit verify --documento`, the panel's
 * Verificar and GET /api/auditoria/verificar.
 */
export async function verifyWorker(
  store: EventStore,
  db: Db | undefined,
  workerId: number,
): Promise<{ streams: string[]; report: VerifyReport }> {
  const streams = await workerStreams(store, workerId);
  return { streams, report: await verifyChains(store, db, { streams }) };
}

export const BREAK_KIND_ES = { altered: 'alterado', missing: 'faltante', truncated: 'truncado' } as const;

/** A break in a sentence of Spanish, for the panel and the HTTP answer. */
export function breakInSpanish(b: ChainBreak): string {
  switch (b.kind) {
    case 'altered':
      return `el evento de la revisión ${b.revision} no corresponde a su hash: fue modificado o no está en su lugar`;
    case 'missing': {
      const from = (b.previous ?? -1) + 1;
      return from === b.revision - 1
        ? `falta el evento de la revisión ${from}, antes de la revisión ${b.revision}`
        : `faltan los eventos de las revisiones ${from} a ${b.revision - 1}, antes de la revisión ${b.revision}`;
    }
    case 'truncated':
      return `faltan los últimos eventos del flujo: llegó a la revisión ${b.previous} y el último guardado es el de la revisión ${b.revision - 1}`;
  }
}
