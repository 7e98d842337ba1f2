import type { Queryable } from '../db/types.ts';
import { START, type Position } from '../store/types.ts';

interface Row {
  name: string;
  commit_pos: string;
  prepare_pos: string;
}

const toPosition = (r: Row): Position => ({ commit: BigInt(r.commit_pos), prepare: BigInt(r.prepare_pos) });

export async function readCheckpoint(q: Queryable, name: string): Promise<Position> {
  const r = await q.query<Row>(
    'SELECT name, commit_pos::text, prepare_pos::text FROM projection_checkpoints WHERE name = $1',
    [name],
  );
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
    tx.query<Row>('SELECT name, commit_pos::text, prepare_pos::text FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [
      name,
    ]);
  let r = await select();
  if (!r.rows[0]) {
    await tx.query(
      'INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos) VALUES ($1, 0, 0) ON CONFLICT (name) DO NOTHING',
      [name],
    );
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

/**
 * Moves the checkpoint from `from` to `to` only if it is still at `from`; false when someone else
 * moved it (a swapped-in rebuild, a runner that took over), and the caller must roll back. The
 * row is locked from here to the end of the transaction, which serialises two writers of one
 * projection at the cost of one statement.
 */
export async function advanceCheckpoint(tx: Queryable, name: string, from: Position, to: Position): Promise<boolean> {
  const moved = await tx.query(
    `UPDATE projection_checkpoints SET commit_pos = $4, prepare_pos = $5, updated_at = now()
     WHERE name = $1 AND commit_pos = $2 AND prepare_pos = $3`,
    [name, from.commit.toString(), from.prepare.toString(), to.commit.toString(), to.prepare.toString()],
  );
  if (moved.rowCount === 1) return true;
  if (from.commit !== START.commit || from.prepare !== START.prepare) return false;
  const first = await tx.query(
    `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
    [name, to.commit.toString(), to.prepare.toString()],
  );
  return first.rowCount === 1;
}
