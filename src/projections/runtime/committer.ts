import type { Db, Queryable } from '../../db/types.ts';
import { Gatherer, batchLimit } from '../../store/gather.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { START, type Position } from '../../store/types.ts';
import type { ProjectionHooks, Projector } from '../types.ts';
import { applyBatch } from './units.ts';

/** One runner's batch: its events and the checkpoint move that goes with them. */
export interface BatchCommit {
  projector: Projector;
  /** The stored checkpoint as the runner last saw it. */
  from: Position;
  to: Position;
  /** Empty when only the checkpoint moves. */
  events: readonly DecodedEvent[];
}

/**
 * Commits the batches of several runners in one transaction. The runners of a service wake on
 * the same append and read the same events, so their batches arrive together: one BEGIN, one
 * checkpoint statement and one COMMIT for all instead of one each, which is most of what a
 * batch costs the database.
 *
 * Each batch still stands or falls on its own checkpoint: one whose stored checkpoint moved under
 * it is left out (answered false) without touching its tables. A failure fails every batch of
 * that transaction; runners retry a failed batch alone, so one projector's trouble does not hold
 * the others back.
 */
export class BatchCommitter {
  // Runners hand their batches over as they are ready; those of the same moment go together,
  // however many transactions are already under way.
  private readonly groups: Gatherer<BatchCommit, boolean>;

  constructor(
    private readonly db: Db,
    private readonly hooks?: ProjectionHooks,
    batching = true,
  ) {
    this.groups = new Gatherer<BatchCommit, boolean>(
      async (group) => {
        const moved = await this.run(group.map((a) => a.item));
        group.forEach((a, i) => a.resolve(moved[i]!));
      },
      Number.POSITIVE_INFINITY,
      batchLimit(Number.POSITIVE_INFINITY, batching),
    );
  }

  /** True when the batch committed; false when its checkpoint was no longer at `from`. */
  commit(commit: BatchCommit, alone = false): Promise<boolean> {
    return alone ? this.run([commit]).then((moved) => moved[0]!) : this.groups.ask(commit);
  }

  private run(commits: BatchCommit[]): Promise<boolean[]> {
    // Read models are derived: a crash that loses this commit also loses its checkpoints, and the
    // batches are simply applied again from the log. No need to wait for the disk.
    return this.db.transaction(
      async (tx) => {
        const moved = await advanceCheckpoints(tx, commits);
        for (const c of commits) {
          if (!moved.has(c.projector.name)) continue;
          if (c.events.length) await applyBatch(tx, c.projector, c.events, '');
          await this.hooks?.beforeCommit?.(c.projector.name, c.events);
        }
        return commits.map((c) => moved.has(c.projector.name));
      },
      { durable: false },
    );
  }
}

/**
 * Moves each checkpoint from `from` to `to` only if it is still at `from`, in one statement, and
 * returns the names that moved. The rows stay locked to the end of the transaction, which
 * serialises two writers of one projection (a runner and a swapped-in rebuild, say).
 */
export async function advanceCheckpoints(
  tx: Queryable,
  commits: readonly Pick<BatchCommit, 'projector' | 'from' | 'to'>[],
): Promise<Set<string>> {
  // Only the holder of a projector's advisory lock writes its row, so two of these transactions
  // do not share rows; were they ever to lock two in opposite orders, PostgreSQL would fail one,
  // and its runners would retry.
  const col = (f: (c: (typeof commits)[number]) => string) => commits.map(f);
  const r = await tx.query<{ name: string }>(
    `UPDATE projection_checkpoints c
        SET commit_pos = u.to_commit, prepare_pos = u.to_prepare, updated_at = now()
       FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[])
            AS u(name, from_commit, from_prepare, to_commit, to_prepare)
      WHERE c.name = u.name AND c.commit_pos = u.from_commit AND c.prepare_pos = u.from_prepare
      RETURNING c.name`,
    [
      col((c) => c.projector.name),
      col((c) => c.from.commit.toString()),
      col((c) => c.from.prepare.toString()),
      col((c) => c.to.commit.toString()),
      col((c) => c.to.prepare.toString()),
    ],
  );
  const moved = new Set(r.rows.map((row) => row.name));
  // A projector that never committed has no row yet: its first batch creates it.
  const first = commits.filter((c) => !moved.has(c.projector.name) && c.from.commit === START.commit && c.from.prepare === START.prepare);
  if (first.length) {
    const created = await tx.query<{ name: string }>(
      `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) ON CONFLICT (name) DO NOTHING RETURNING name`,
      [first.map((c) => c.projector.name), first.map((c) => c.to.commit.toString()), first.map((c) => c.to.prepare.toString())],
    );
    for (const row of created.rows) moved.add(row.name);
  }
  return moved;
}
