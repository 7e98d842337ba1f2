import type { Queryable } from '../../db/types.ts';
import { START, type Position } from '../../store/types.ts';

interface Row {
  name: string;
  commit_pos: string;
  prepare_pos: string;
}

const toPosition = (r: Row): Position => ({ commit: BigInt(r.commit_pos), prepare: BigInt(r.prepare_pos) });

export async function readCheckpoint(q: Queryable, name: string): Promise<Position> {
  const r = await q.query<Row>('SELECT name, commit_pos::text, prepare_pos::text FROM projection_checkpoints WHERE name = $1', [name]);
  return r.rows[0] ? toPosition(r.rows[0]) : START;
}

export async function readCheckpoints(q: Queryable, names: readonly string[]): Promise<Map<string, Position>> {
  const r = await q.query<Row>(
    'SELECT name, commit_pos::text, prepare_pos::text FROM projection_checkpoints WHERE name = ANY($1::text[])',
    [names],
  );
  const out = new Map<string, Position>(names.map((n) => [n, START]));
  for (const row of r.rows) out.set(row.name, toPosition(row));
  return out;
}

/**
 * Reads the checkpoint and locks its row until the transaction ends: whoever applies a batch or
 * swaps rebuilt tables goes through this row, so two writers of one projection are serialised
 * even if they both believe they hold its advisory lock.
 */
export async function lockCheckpoint(tx: Queryable, name: string): Promise<Position> {
  const select = () =>
    tx.query<Row>('SELECT name, commit_pos::text, prepare_pos::text FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [name]);
  let r = await select();
  if (!r.rows[0]) {
    await tx.query('INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos) VALUES ($1, 0, 0) ON CONFLICT (name) DO NOTHING', [
      name,
    ]);
    r = await select();
  }
  return toPosition(r.rows[0]!);
}

export async function writeCheckpoint(tx: Queryable, name: string, p: Position): Promise<void> {
  await tx.query(
    `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (name) DO UPDATE SET commit_pos = EXCLUDED.commit_pos, prepare_pos = EXCLUDED.prepare_pos, updated_at = now()`,
    [name, p.commit.toString(), p.prepare.toString()],
  );
}
