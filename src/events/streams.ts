/** Stream names. Every vacation event of one worker lives in that worker's stream. */
export const workerStream = (workerId: number): string => `worker-${workerId}`;
/** The worker whose stream this is; undefined for any other stream. */
export function workerIdOfStream(stream: string): number | undefined {
  const m = /^worker-(\d+)$/.exec(stream);
  return m ? Number(m[1]) : undefined;
}

/** One stream per PILA code: appended with "no stream" so a code can never be issued twice. */
export const pilaStream = (codigoPila: string): string => `pila-${codigoPila}`;

/**
 * Occupancy of one subgerencia in one calendar month: slot bookings and releases of enjoyed
 * vacations. Writing it with an expected revision is what serialises the people-at-once rule
 * across workers.
 */
export const unitStream = (subgerenciaId: string, month: string): string => `unit-${subgerenciaId}-${month}`;
export const isUnitStream = (stream: string): boolean => stream.startsWith('unit-');

/** Audited queries (consult, contract check) of one worker; kept apart so reads never conflict with writes. */
export const auditStream = (workerId: number): string => `audit-worker-${workerId}`;

/** One stream per collective closure: its decision, approval and cancellation. */
export const closureStream = (closureId: string): string => `closure-${closureId}`;
