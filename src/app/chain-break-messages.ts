import type { ChainBreak } from '../integrity/chain-check.ts';

/** A break's kind in the words of the interface (`tipo` of GET /api/auditoria/verificar). */
export const BREAK_KIND_ES = { altered: 'alterado', missing: 'faltante', truncated: 'truncado' } as const;

/** A break in a sentence of Spanish, for the HTTP answer and the panel's Verificar. */
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
      return (
        `faltan los últimos eventos del flujo: llegó a la revisión ${b.previous} ` +
        `y el último guardado es el de la revisión ${b.revision - 1}`
      );
  }
}
