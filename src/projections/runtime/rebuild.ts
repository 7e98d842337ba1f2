import type { Db } from '../../db/types.ts';
import { START, comparePositions, type EventStore, type Position } from '../../store/types.ts';
import { analyzeLogIfStale, analyzeTables, eventsUpTo, loadInPlace, readsLogInPlace } from './bulk.ts';
import { lockCheckpoint, writeCheckpoint } from './checkpoints.ts';
import { LockSession, rebuildKey, runnerKey } from './locks.ts';
import { selectProjectors } from './registry.ts';
import { decodeAll } from './runner.ts';
import { dropTables, swapTables } from './tables.ts';
import { LOG_TABLE_DDL, LogIdentity, recordLog } from './log-identity.ts';
import type { Projector } from '../types.ts';

/** Build tables live under this suffix until the swap; the rebuild lock keeps it to one rebuild at a time. */
export const REBUILD_SUFFIX = '__rebuild';

export interface RebuildProgress {
  phase: 'replay' | 'catch-up';
  /** Events applied so far. */
  done: number;
  /** Events known to exist when the phase began. */
  total: number;
  elapsedMs: number;
}

export interface RebuildOptions {
  onProgress?: (p: RebuildProgress) => void;
  /** Events per read and per transaction (default 5000). */
  batchSize?: number;
}

export interface RebuildResult {
  projectors: string[];
  events: number;
  durationMs: number;
  /** Checkpoint the rebuilt tables were swapped in at. */
  position: Position;
}

export class RebuildBusyError extends Error {
  override name = 'RebuildBusyError';
}

const LOCK_TIMEOUT = '55P03';
const SWAP_ATTEMPTS = 5;

/**
 * Rebuilds read models from the first event while the live ones keep serving: fills fresh
 * `<table>__rebuild` tables, then takes each projector's runner lock (the live runner hands it
 * over at its next batch boundary), applies what arrived meanwhile, and in one transaction drops
 * the live tables, renames the new ones in and sets the checkpoints.
 *
 * On the PostgreSQL event store, the read models that can are first filled in the database itself
 * from the log up to its head (bulk.ts); the others replay every event through this process.
 */
export async function rebuild(db: Db, store: EventStore, names?: readonly string[], opts: RebuildOptions = {}): Promise<RebuildResult> {
  const chosen = selectProjectors(names);
  const batchSize = opts.batchSize ?? 5000;
  const t0 = performance.now();
  const locks = new LockSession(db);
  let built = false;
  try {
    for (const p of chosen) {
      if (!(await locks.tryLock(rebuildKey(p.name)))) throw new RebuildBusyError(`a rebuild of ${p.name} is already running`);
    }
    await db.transaction(async (tx) => {
      for (const p of chosen) {
        await dropTables(tx, p, REBUILD_SUFFIX);
        await tx.exec(p.ddl(REBUILD_SUFFIX));
      }
      await tx.exec(LOG_TABLE_DDL);
    });
    built = true;

    const report = (phase: RebuildProgress['phase'], done: number, total: number) =>
      opts.onProgress?.({ phase, done, total, elapsedMs: performance.now() - t0 });

    const total = await store.countAfter(START);
    // How far each build is: loaded in place up to the head, or nowhere yet.
    const from = new Map<string, Position>(chosen.map((p) => [p.name, START]));
    let covered = 0;
    const inPlace = chosen.filter((p) => readsLogInPlace(db, store, p));
    if (inPlace.length > 0) {
      const head = await store.headPosition();
      await analyzeLogIfStale(db);
      covered = await eventsUpTo(db, head);
      let loaded = 0;
      await eachAtOnce(inPlace, IN_PLACE_AT_ONCE, async (p) => {
        if (await loadInPlace(db, p, REBUILD_SUFFIX, head)) from.set(p.name, head);
        report('replay', Math.round((covered * ++loaded) / inPlace.length), total);
      });
    }
    // The events of the head loaded in place are counted once, however many read models they went to.
    const base = chosen.every((p) => from.get(p.name) !== START) ? covered : 0;
    const first = await replay(db, store, chosen, from, batchSize, (n) => report('replay', base + n, Math.max(total, base + n)));
    let count = base + first.count;
    // A load in place analyzed its tables already; those filled event by event are analyzed here.
    const replayed = chosen.filter((p) => from.get(p.name) === START);
    await eachAtOnce(replayed, IN_PLACE_AT_ONCE, (p) => analyzeTables(db, db, p, REBUILD_SUFFIX));

    // Runner locks in name order, so that two rebuilds of overlapping sets cannot deadlock.
    for (const p of [...chosen].sort((a, b) => a.name.localeCompare(b.name))) await locks.lock(runnerKey(p.name));
    const atPosition = new Map(chosen.map((p) => [p.name, first.position]));
    const rest = await store.countAfter(first.position);
    const more = await replay(db, store, chosen, atPosition, batchSize, (n) => report('catch-up', count + n, count + rest));
    count += more.count;

    await swap(db, chosen, more.position, await new LogIdentity(store).current());
    built = false;
    return {
      projectors: chosen.map((p) => p.name),
      events: count,
      durationMs: performance.now() - t0,
      position: more.position,
    };
  } finally {
    if (built) {
      await db
        .transaction(async (tx) => {
          for (const p of chosen) await dropTables(tx, p, REBUILD_SUFFIX);
        })
        .catch(() => {});
    }
    await locks.close();
  }
}

/**
 * Read models loaded in place at once, each on a connection of its own: the database's two
 * sides of the work (reading the log, writing and indexing) overlap, and no more than that.
 */
const IN_PLACE_AT_ONCE = 2;

/** Runs `fn` over the items, `width` at a time; the first failure fails the whole once the others end. */
async function eachAtOnce<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  const lanes = Array.from({ length: Math.min(width, items.length) }, lane);
  const settled = await Promise.allSettled(lanes);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Batches a projector may run ahead of the slowest one: bounds the events held in memory. */
const AHEAD = 2;

/**
 * Applies to each projector's build the events after its own position in `from`, reading the
 * log once from the earliest of them to its end; answers the last position read (the latest of
 * `from` when there was nothing more) and how many events were read. Each projector writes on a
 * connection of its own and goes on to the next batch as soon as it is done with this one, so the
 * database works on several projectors at once while the next batch is read and decoded. The
 * tables are not read until the swap, so they need not agree with each other batch by batch; a
 * failure anywhere fails the rebuild and drops them all.
 */
async function replay(
  db: Db,
  store: EventStore,
  projectors: readonly Projector[],
  from: ReadonlyMap<string, Position>,
  batchSize: number,
  onBatch: (count: number) => void,
): Promise<{ position: Position; count: number }> {
  const starts = projectors.map((p) => from.get(p.name) ?? START);
  let position = starts.reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
  let last = starts.reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
  let count = 0;
  const lanes: Promise<void>[] = projectors.map(() => Promise.resolve());
  const pending: Promise<unknown>[] = [];
  try {
    let next = store.readAll({ after: position, limit: batchSize });
    for (;;) {
      const stored = await next;
      if (stored.length === 0) break;
      position = stored[stored.length - 1]!.position;
      if (comparePositions(position, last) > 0) last = position;
      next = store.readAll({ after: position, limit: batchSize });
      next.catch(() => {});
      const events = decodeAll(stored);
      projectors.forEach((p, i) => {
        const after = starts[i]!;
        const own = after === START ? events : events.filter((e) => comparePositions(e.stored.position, after) > 0);
        // A batch with nothing the projector handles changes none of its tables.
        if (!own.some((e) => p.handles.has(e.event.type))) return;
        // Not durable: losing the last batches of tables nobody reads yet only means rebuilding again.
        lanes[i] = lanes[i]!.then(() => db.transaction((tx) => p.apply(tx, own, REBUILD_SUFFIX), { durable: false }));
      });
      const size = stored.length;
      const done = Promise.all(lanes).then(() => {
        count += size;
        onBatch(count);
      });
      done.catch(() => {});
      pending.push(done);
      if (pending.length > AHEAD) await pending.shift();
    }
    for (const done of pending) await done;
  } finally {
    // Never leave a projector writing after a failure: the caller drops the tables next.
    await Promise.allSettled(lanes);
  }
  return { position: last, count };
}

/**
 * The swap needs exclusive locks on the live tables; a long query holding them would make every
 * new reader queue behind the swap, so it gives up quickly and tries again instead.
 */
async function swap(db: Db, projectors: readonly Projector[], position: Position, identity: string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.transaction(async (tx) => {
        if (db.kind === 'postgres') await tx.query(`SET LOCAL lock_timeout = '2s'`);
        for (const p of projectors) {
          await lockCheckpoint(tx, p.name);
          await swapTables(tx, p, REBUILD_SUFFIX);
          await writeCheckpoint(tx, p.name, position);
          // Rebuilt from this log: the checkpoint is of this log now.
          if (identity !== undefined) await recordLog(tx, p.name, identity);
        }
      });
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_TIMEOUT || attempt >= SWAP_ATTEMPTS) throw err;
    }
  }
}
