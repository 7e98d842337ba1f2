import { auditLogOf, type AuditLog, type StreamScope } from '../store/audit-log.ts';
import { START, type EventStore } from '../store/types.ts';
import { ChainChecker, type ChainBreak } from './chain-check.ts';

/** What a verification covers: every stream, or the streams named. */
export type VerifyScope = StreamScope;

export interface VerifyReport {
  events: number;
  streams: number;
  /** The first break of each broken stream, in the order the streams were checked. */
  breaks: ChainBreak[];
  ms: number;
}

export interface VerifyProgress {
  done: number;
  total: number;
}

/** Events read per page of the log where the store has no audit log of its own. */
const PAGE = 2_000;

/**
 * Recomputes the hash chains of a scope and reports the first break of every broken stream. Where
 * the log is kept in a database (PostgreSQL, PGlite) the database recomputes every link itself,
 * and also tells the streams whose newest events are gone; elsewhere the events are read and
 * checked here.
 */
export async function verifyChains(store: EventStore, scope: VerifyScope, onProgress?: (p: VerifyProgress) => void): Promise<VerifyReport> {
  const t0 = performance.now();
  const log = auditLogOf(store);
  const r = log ? await verifyInDatabase(log, scope, onProgress) : await verifyFromStore(store, scope, onProgress);
  return { ...r, ms: performance.now() - t0 };
}

async function verifyInDatabase(
  log: AuditLog,
  scope: VerifyScope,
  onProgress?: (p: VerifyProgress) => void,
): Promise<Omit<VerifyReport, 'ms'>> {
  const { streams, events: total } = await log.size(scope);
  let done = 0;
  const links = await log.firstFaultyLinks(scope, (n) => {
    done += n;
    onProgress?.({ done, total: Math.max(total, done) });
  });
  const breaks: ChainBreak[] = links.map((l) =>
    l.previous !== l.revision - 1
      ? { stream: l.stream, revision: l.revision, kind: 'missing', expected: l.expected, found: l.found, previous: l.previous }
      : { stream: l.stream, revision: l.revision, kind: 'altered', expected: l.expected, found: l.found },
  );
  // The newest events of a stream, removed together with nothing after them to break a link.
  const broken = new Set(breaks.map((b) => b.stream));
  for (const s of await log.shortStreams(scope)) {
    if (broken.has(s.stream)) continue;
    breaks.push({ stream: s.stream, revision: s.last + 1, kind: 'truncated', expected: '', found: s.hash, previous: s.reached });
  }
  return { events: done, streams, breaks };
}

async function verifyFromStore(
  store: EventStore,
  scope: VerifyScope,
  onProgress?: (p: VerifyProgress) => void,
): Promise<Omit<VerifyReport, 'ms'>> {
  const checker = new ChainChecker();
  if (scope.all) {
    // The log in its order: each stream's events come in revision order, streams interleaved.
    let after = START;
    for (;;) {
      const page = await store.readAll({ after, limit: PAGE });
      if (page.length === 0) break;
      for (const e of page) checker.check(e);
      after = page.at(-1)!.position;
      onProgress?.({ done: checker.events, total: checker.events });
    }
  } else {
    for (const stream of scope.streams) {
      for (const e of await store.readStream(stream)) checker.check(e);
      onProgress?.({ done: checker.events, total: checker.events });
    }
  }
  return { events: checker.events, streams: checker.streams, breaks: checker.breaks };
}
