import type { Db } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { START, type EventStore, type Position, type StoredEvent } from '../../store/types.ts';
import { BulkBuild, analyzeTables, attachIndexes, detachIndexes } from './bulk.ts';
import { lockCheckpoint, writeCheckpoint } from './checkpoints.ts';
import { LockSession, rebuildKey, runnerKey } from './locks.ts';
import { selectProjectors } from '../registry.ts';
import { decodeAll } from './runner.ts';
import { dropTables, swapTables } from './tables.ts';
import { LOG_TABLE_DDL, LogIdentity, recordLog } from './log-identity.ts';
import { applyBatch } from './units.ts';
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
  /** Events per read of the log (default 10,000). */
  batchSize?: number;
  /** Units each read model holds in memory before it writes them out (default 100,000; see BulkBuild). */
  unitsInMemory?: number;
}

export interface RebuildResult {
  projectors: string[];
  /** Events of the types the read models handle, all applied (the log's others are not read). */
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
 * `<table>__rebuild` tables in bulk (BulkBuild: the projectors' own evolve over the events of
 * the types they handle, written by COPY, indexes made once at the end), then takes each
 * projector's runner lock (the live runner hands it over at its next batch boundary), applies
 * what arrived meanwhile the live way, and in one transaction drops the live tables, renames the
 * new ones in and sets the checkpoints.
 */
export async function rebuild(db: Db, store: EventStore, names?: readonly string[], opts: RebuildOptions = {}): Promise<RebuildResult> {
  const chosen = selectProjectors(names);
  const batchSize = opts.batchSize ?? 10_000;
  const types = [...new Set(chosen.flatMap((p) => [...p.handles]))];
  const t0 = performance.now();
  const locks = new LockSession(db);
  let built = false;
  try {
    for (const p of chosen) {
      if (!(await locks.tryLock(rebuildKey(p.name)))) throw new RebuildBusyError(`a rebuild of ${p.name} is already running`);
    }
    built = true;
    const report = (phase: RebuildProgress['phase'], done: number, total: number) =>
      opts.onProgress?.({ phase, done, total, elapsedMs: performance.now() - t0 });
    // The total is for the progress shown, nothing else: counted beside the replay, not before it
    // (a count over a log of a million events took 0.7 s of a 16 s rebuild). Reports wait for it.
    let total: number | undefined;
    const counting = store.countAfter(START, { types }).then((n) => (total = n));
    counting.catch(() => {});
    let unreported = 0;
    const progress = (n: number) => {
      unreported = total === undefined ? n : 0;
      if (total !== undefined) report('replay', n, Math.max(total, n));
    };

    /** Fresh build tables filled from the log, stream by stream or in its order, indexed and analyzed. */
    const build = async (byStream: boolean) => {
      // Read stream by stream, no unit is read back or replaced: the keys too are made at the end.
      const indexes = await makeBuildTables(db, chosen, byStream);
      const builds = chosen.map((p) => new BulkBuild(db, p, REBUILD_SUFFIX, opts.unitsInMemory ?? 100_000));
      let read: { position: Position; count: number };
      try {
        read = byStream
          ? await readByStream(
              store,
              types,
              await store.headPosition(),
              batchSize,
              async (events, open) => {
                for (const b of builds) await b.take(events, open);
              },
              progress,
            )
          : await readLog(
              store,
              types,
              START,
              batchSize,
              async (events) => {
                for (const b of builds) await b.take(events);
              },
              progress,
            );
        for (const b of builds) await b.finish();
      } finally {
        for (const b of builds) await b.settle();
      }
      await eachAtOnce(chosen, AT_ONCE, async (p) => {
        await attachIndexes(db, indexes.get(p.name)!);
        await analyzeTables(db, db, p, REBUILD_SUFFIX);
      });
      return read;
    };
    let first: { position: Position; count: number };
    try {
      first = await build(store.readByStream !== undefined);
    } catch (err) {
      // A unit whose events lie in two streams (a code the service never writes twice) went out
      // twice, read stream by stream: the log's order gives it as live batches do.
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION || !store.readByStream) throw err;
      first = await build(false);
    }
    let count = first.count;
    await counting;
    // A replay shorter than the count: its end is still told.
    if (unreported > 0) report('replay', unreported, Math.max(total ?? 0, unreported));

    // Runner locks in name order, so that two rebuilds of overlapping sets cannot deadlock.
    for (const p of [...chosen].sort((a, b) => a.name.localeCompare(b.name))) await locks.lock(runnerKey(p.name));
    const rest = await store.countAfter(first.position, { types });
    const more = await readLog(
      store,
      types,
      first.position,
      batchSize,
      (events) =>
        // Not durable: losing tables nobody reads yet only means rebuilding again.
        db.transaction(
          async (tx) => {
            for (const p of chosen) await applyBatch(tx, p, events, REBUILD_SUFFIX);
          },
          { durable: false },
        ),
      (n) => report('catch-up', count + n, count + Math.max(rest, n)),
    );
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
 * Empty build tables of the projectors, without their secondary indexes (and with `keys`, without
 * their keys): answers the statements that make those again once the rows are in, by projector.
 */
async function makeBuildTables(db: Db, projectors: readonly Projector[], keys: boolean): Promise<Map<string, string[]>> {
  await db.transaction(async (tx) => {
    for (const p of projectors) {
      await dropTables(tx, p, REBUILD_SUFFIX);
      await tx.exec(p.ddl(REBUILD_SUFFIX));
    }
    await tx.exec(LOG_TABLE_DDL);
  });
  const indexes = new Map<string, string[]>();
  for (const p of projectors) indexes.set(p.name, await detachIndexes(db, p, REBUILD_SUFFIX, keys));
  return indexes;
}

const UNIQUE_VIOLATION = '23505';

/** Read models whose indexes are made at once, each on a connection of its own: the two cores, no more. */
const AT_ONCE = 2;

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

/**
 * Hands `apply` the pages `read` gives, each with its last event, reading the next page (after
 * that event) while one is applied; answers the last event read and how many were.
 */
async function eachPage(
  read: (last: StoredEvent | undefined) => Promise<StoredEvent[]>,
  apply: (events: DecodedEvent[], last: StoredEvent) => Promise<unknown>,
  onBatch: (count: number) => void,
): Promise<{ last: StoredEvent | undefined; count: number }> {
  let last: StoredEvent | undefined;
  let count = 0;
  let next = read(undefined);
  for (;;) {
    const stored = await next;
    if (stored.length === 0) break;
    last = stored[stored.length - 1]!;
    next = read(last);
    next.catch(() => {});
    await apply(decodeAll(stored), last);
    count += stored.length;
    onBatch(count);
  }
  return { last, count };
}

/**
 * The events of these types up to `upTo`, stream by stream, with the stream that may go on in the
 * next batch (the last one of this). Answers `upTo`, from which the catch-up goes on in the log's
 * order.
 */
async function readByStream(
  store: EventStore,
  types: readonly string[],
  upTo: Position,
  batchSize: number,
  apply: (events: DecodedEvent[], openStream: string) => Promise<unknown>,
  onBatch: (count: number) => void,
): Promise<{ position: Position; count: number }> {
  const { count } = await eachPage(
    (last) => store.readByStream!({ after: last && { stream: last.stream, revision: last.revision }, upTo, types, limit: batchSize }),
    (events, last) => apply(events, last.stream),
    onBatch,
  );
  return { position: upTo, count };
}

/** The events of these types after `from`, in the log's order; answers the last position read (`from` when none). */
async function readLog(
  store: EventStore,
  types: readonly string[],
  from: Position,
  batchSize: number,
  apply: (events: DecodedEvent[]) => Promise<unknown>,
  onBatch: (count: number) => void,
): Promise<{ position: Position; count: number }> {
  const { last, count } = await eachPage((l) => store.readAll({ after: l?.position ?? from, limit: batchSize, types }), apply, onBatch);
  return { position: last?.position ?? from, count };
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
