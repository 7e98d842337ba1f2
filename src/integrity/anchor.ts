import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { unattendedMetadata } from '../events/types.ts';
import { auditLogOf } from '../store/audit-log.ts';
import { compareUtf8 } from '../store/chain.ts';
import { START, comparePositions, positionToString, type EventStore, type Position } from '../store/types.ts';
import { MerkleRoot, type StreamHead } from './merkle.ts';

/**
 * Anchors: the Merkle root (merkle.ts) of the heads of every stream at a position of the log,
 * printed for whoever keeps it and recorded in the `anchors` stream. The chains show an event
 * changed or removed in the middle of a stream; a stream's newest events can be removed without
 * breaking a link, but not without changing the root of the heads at any later anchor. The heads
 * at a position are, per stream, its event of highest revision among those at or before that
 * position in the log's order: a set that never changes once readable (see readAll), so the root
 * can be recomputed at any time.
 */
export const ANCHOR_STREAM = 'anchors';
export const ANCHOR_TYPE = 'HeadsAnchored';

export const anchorSchema = z.object({
  root: z.string().regex(/^[0-9a-f]{64}$/),
  /** The log position the heads were taken at, as `commit/prepare`. */
  position: z.string().regex(/^\d+\/\d+$/),
  streams: z.number().int().nonnegative(),
  /** Events the heads stand for (the sum of their revisions plus one). */
  events: z.number().int().nonnegative(),
  anchoredAt: z.string(),
});
export type Anchor = z.infer<typeof anchorSchema>;

export function parsePosition(s: string): Position {
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (!m) throw new Error(`not a log position: ${s}`);
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
}

/** The line an operator keeps: everything needed to check the anchor later. */
export function anchorLine(a: Anchor): string {
  return `anchor ${a.root} at ${a.position}: ${a.streams} streams, ${a.events} events, ${a.anchoredAt}`;
}

/** The root and position of a kept anchor line, or of `root@position`. */
export function parseAnchorLine(line: string): { root: string; position: string } | undefined {
  const m = /\b([0-9a-f]{64})(?:@|\s+at\s+)(\d+\/\d+)\b/.exec(line.trim());
  return m ? { root: m[1]!, position: m[2]! } : undefined;
}

/** Events read per page of the log where the store has no audit log of its own. */
const PAGE = 2_000;

/** The Merkle root of the heads of every stream at `position`. */
export async function rootAt(store: EventStore, position: Position): Promise<Omit<Anchor, 'anchoredAt'>> {
  const m = new MerkleRoot();
  let events = 0;
  const add = (h: StreamHead) => {
    m.add(h);
    events += h.revision + 1;
  };
  const log = auditLogOf(store);
  if (log) await log.heads(position, add);
  else await headsFromLog(store, position, add);
  return { root: m.root(), position: positionToString(position), streams: m.count, events };
}

/** Any store: the log read from its start, one head kept per stream. */
async function headsFromLog(store: EventStore, at: Position, each: (h: StreamHead) => void): Promise<void> {
  const heads = new Map<string, StreamHead>();
  let after = START;
  outer: for (;;) {
    const page = await store.readAll({ after, limit: PAGE });
    if (page.length === 0) break;
    for (const e of page) {
      if (comparePositions(e.position, at) > 0) break outer;
      const held = heads.get(e.stream);
      if (!held || e.revision > held.revision) heads.set(e.stream, { stream: e.stream, revision: e.revision, hash: e.hash ?? '' });
    }
    after = page.at(-1)!.position;
  }
  for (const h of [...heads.values()].sort((a, b) => compareUtf8(a.stream, b.stream))) each(h);
}

/** Anchors the heads of now: computes the root at the log's head and records it in the anchors stream. */
export async function recordAnchor(store: EventStore, now: Date = new Date()): Promise<Anchor> {
  const head = await store.headPosition();
  const anchor: Anchor = { ...(await rootAt(store, head)), anchoredAt: now.toISOString() };
  const metadata = unattendedMetadata('cli', anchor.anchoredAt);
  await store.append([
    { stream: ANCHOR_STREAM, expectedRevision: 'any', events: [{ id: randomUUID(), type: ANCHOR_TYPE, data: anchor, metadata }] },
  ]);
  return anchor;
}

/** The newest anchor recorded, if any (and if it reads as one). */
export async function latestAnchor(store: EventStore): Promise<{ revision: number; anchor: Anchor } | undefined> {
  const events = await store.readStream(ANCHOR_STREAM);
  for (let i = events.length - 1; i >= 0; i--) {
    const parsed = anchorSchema.safeParse(events[i]!.data);
    if (events[i]!.type === ANCHOR_TYPE && parsed.success) return { revision: events[i]!.revision, anchor: parsed.data };
  }
  return undefined;
}

/** Recomputes an anchor's root: whether the heads it stood for are still there, unchanged. */
export async function checkAnchor(store: EventStore, kept: { root: string; position: string }): Promise<{ holds: boolean; root: string }> {
  const now = await rootAt(store, parsePosition(kept.position));
  return { holds: now.root === kept.root, root: now.root };
}
