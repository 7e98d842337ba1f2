import { chainHash, type ChainedFields } from '../store/chain.ts';

/**
 * A place where a stream's hash chain does not hold:
 * - `altered`: the event there does not hash to the hash it carries, after the one before it: its
 *   content, its place, or the event before it is not what was written (a changed payload, two
 *   events swapped, an event moved in from elsewhere);
 * - `missing`: revisions are missing before it (an event removed from the middle; its own link
 *   then fails too, and `expected` is what it would be after the event now before it);
 * - `truncated`: the stream's newest events are gone (the store says the stream reached a revision
 *   that no event holds).
 */
export interface ChainBreak {
  stream: string;
  revision: number;
  kind: 'altered' | 'missing' | 'truncated';
  /** The hash the event should carry, recomputed (for `truncated`: '' , nothing to recompute). */
  expected: string;
  /** The hash the event carries (for `truncated`: the last event's). */
  found: string;
  /** `missing`: the revision of the event now before it (-1: none); `truncated`: the stream's last revision. */
  previous?: number;
}

export function describeBreak(b: ChainBreak): string {
  const at = `stream ${b.stream} revision ${b.revision}`;
  // An event with no hash at all: stored on KurrentDB before the chain, or by another tool.
  const found = b.found === '' ? 'no hash' : b.found;
  switch (b.kind) {
    case 'altered':
      return `${at}: the event does not match its hash (changed, or not in its place): expected ${b.expected}, found ${found}`;
    case 'missing': {
      const from = (b.previous ?? -1) + 1;
      const gap = from === b.revision - 1 ? `revision ${from} is` : `revisions ${from} to ${b.revision - 1} are`;
      return `${at}: ${gap} missing before it: expected ${b.expected}, found ${found}`;
    }
    case 'truncated': {
      const gap = b.revision === b.previous ? `revision ${b.revision}` : `revisions ${b.revision} to ${b.previous}`;
      const left = b.revision > 0 ? `its last event, revision ${b.revision - 1}, holds ${b.found}` : 'no event of it is left';
      return `stream ${b.stream} ${gap}: missing at the end of the stream, which reached revision ${b.previous} (${left})`;
    }
  }
}

/** An event as a verifier sees it: what its hash covers, and the hash it carries. */
export interface CheckedEvent extends ChainedFields {
  hash?: string;
}

/**
 * Follows the chains of any number of streams, each given in revision order (streams may
 * interleave), and tells the first break of each. Holds one link per stream.
 */
export class ChainChecker {
  private readonly last = new Map<string, { revision: number; hash: string; broken: boolean }>();
  events = 0;
  streams = 0;
  readonly breaks: ChainBreak[] = [];

  /** The break this event shows, if it is its stream's first. */
  check(e: CheckedEvent): ChainBreak | undefined {
    this.events++;
    const before = this.last.get(e.stream);
    if (!before) this.streams++;
    const previous = before ?? { revision: -1, hash: '', broken: false };
    const expected = chainHash(previous.hash, e);
    const found = e.hash ?? '';
    let b: ChainBreak | undefined;
    if (e.revision !== previous.revision + 1) {
      b = { stream: e.stream, revision: e.revision, kind: 'missing', expected, found, previous: previous.revision };
    } else if (expected !== found) {
      b = { stream: e.stream, revision: e.revision, kind: 'altered', expected, found };
    }
    const first = b !== undefined && !previous.broken;
    this.last.set(e.stream, { revision: e.revision, hash: found, broken: previous.broken || b !== undefined });
    if (!first) return undefined;
    this.breaks.push(b!);
    return b;
  }

  /** The last link seen of a stream (revision -1 and '' when none). */
  head(stream: string): { revision: number; hash: string } {
    const l = this.last.get(stream);
    return l ? { revision: l.revision, hash: l.hash } : { revision: -1, hash: '' };
  }

  /** The stream should have reached `revision`: a break when its newest events are missing. */
  expectHead(stream: string, revision: number): ChainBreak | undefined {
    const l = this.head(stream);
    if (revision <= l.revision || this.last.get(stream)?.broken) return undefined;
    const b: ChainBreak = { stream, revision: l.revision + 1, kind: 'truncated', expected: '', found: l.hash, previous: revision };
    this.breaks.push(b);
    return b;
  }

  /** Forgets a stream that will not be seen again (bounded memory over streams given one by one). */
  forget(stream: string): void {
    this.last.delete(stream);
  }
}
