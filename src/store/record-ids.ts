import type { Queryable } from '../db/types.ts';

/**
 * Numeric vacation record ids (the spec's id, idEliminado), taken from the vacation_record_ids
 * sequence (postgres-schema/migrations.ts) before the append that records them; gaps are fine.
 */
export async function nextRecordIds(q: Queryable, n: number): Promise<number[]> {
  const r = await q.query<{ id: string }>(`SELECT nextval('vacation_record_ids')::text AS id FROM generate_series(1, $1)`, [n]);
  return r.rows.map((row) => Number(row.id));
}

/**
 * Record ids taken from the sequence fifty at a time, so that a create does not spend a round
 * trip on its id. Ids stay unique; an instance that stops leaves a gap, which is harmless.
 */
export function idsInBlocks(fetch: (n: number) => Promise<number[]>, size = 50): () => Promise<number> {
  const ready: number[] = [];
  let pending: Promise<void> | undefined;
  return async () => {
    while (ready.length === 0) {
      pending ??= fetch(size)
        .then((ids) => {
          ready.push(...ids);
        })
        .finally(() => {
          pending = undefined;
        });
      await pending;
    }
    return ready.shift()!;
  };
}
