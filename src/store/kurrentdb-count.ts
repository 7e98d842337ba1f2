import { comparePositions, type Position } from './types.ts';

/** One event of a page of $all, as the count needs it. */
export interface CountedEvent {
  position: Position;
  /** An event of ours (the port's readAll would deliver it). */
  ours: boolean;
}

/**
 * KurrentDB has no count, so the projectors' lag is counted by reading $all. To read each event
 * about once instead of on every /metrics scrape, the positions of our events are kept from the
 * lowest position asked about on, as far as the log has been read (`end`): a count reads only
 * what was appended since, or, once `cap` events lie past the position asked about, nothing.
 * Positions are two 64-bit numbers each, and at most twice `cap` + 1 are kept.
 */
export class TailCount {
  private base: Position | undefined;
  private end: Position | undefined;
  private positions: Position[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    /** A page of $all forwards from `from` (inclusive), at most `max` events. */
    private readonly readPage: (from: Position, max: number) => Promise<CountedEvent[]>,
    private readonly cap: number,
  ) {}

  /** Events of ours after `after`, up to `cap` (a lag that large reads as `cap`). One at a time. */
  count(after: Position): Promise<number> {
    const counted = this.queue.then(() => this.countNow(after));
    this.queue = counted.catch(() => {});
    return counted;
  }

  private async countNow(after: Position): Promise<number> {
    if (this.base === undefined || comparePositions(after, this.base) < 0 || comparePositions(after, this.end!) > 0) {
      // Nothing known about the log after `after`: start there.
      this.base = this.end = after;
      this.positions = [];
    }
    let n = this.positions.length - this.firstAfter(after);
    while (n <= this.cap) {
      const want = this.cap + 2 - n;
      const page = await this.readPage(this.end!, want);
      for (const e of page) {
        if (comparePositions(e.position, this.end!) <= 0) continue;
        this.end = e.position;
        if (!e.ours) continue;
        this.positions.push(e.position);
        n++;
      }
      if (page.length < want) break;
    }
    const keep = 2 * (this.cap + 1);
    if (this.positions.length > keep) {
      const dropped = this.positions.splice(0, this.positions.length - keep);
      this.base = dropped.at(-1)!;
    }
    return Math.min(n, this.cap);
  }

  /** Index of the first kept position after `p`. */
  private firstAfter(p: Position): number {
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePositions(this.positions[mid]!, p) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
