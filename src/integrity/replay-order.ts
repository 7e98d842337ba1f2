import { compareUtf8 } from '../store/chain.ts';
import { comparePositions, type StoredEvent } from '../store/types.ts';
import { streamAsOf } from './as-of.ts';

/**
 * Events of a few streams in the order a replay tells them: each stream in the order of its
 * revisions (as of a time, if one is given: streamAsOf), the streams woven together in the order
 * of the log. Positions only say which stream's next event comes first: those of one stream may
 * run against its revisions, since two appends can hold transaction ids in the other order from
 * the one they took the stream's lock in.
 */
export function replayOrder(events: StoredEvent[], asOf?: number): StoredEvent[] {
  const byStream = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const own = byStream.get(e.stream);
    if (own) own.push(e);
    else byStream.set(e.stream, [e]);
  }
  const queues = [...byStream.entries()]
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([, own]) => {
      own.sort((a, b) => a.revision - b.revision);
      return asOf === undefined ? own : streamAsOf(own, asOf);
    });
  const next = queues.map(() => 0);
  const out: StoredEvent[] = [];
  for (;;) {
    let first = -1;
    for (let i = 0; i < queues.length; i++) {
      const e = queues[i]![next[i]!];
      if (e && (first < 0 || comparePositions(e.position, queues[first]![next[first]!]!.position) < 0)) first = i;
    }
    if (first < 0) return out;
    out.push(queues[first]![next[first]!++]!);
  }
}
