/**
 * What a reader of the log vouches for, so that a cache may answer a query from memory without
 * asking the store whether anything was appended since: while the reader reads the log (`reading`),
 * it announces every change it applies that the vouched streams may hold (`changed`). A stream
 * held from a read that landed with no announcement in between is then as current as the log the
 * reader has applied, plus this process's own appends, which the cache adds as they are
 * acknowledged. Each announcement, and each start or stop of the reader, voids every vouch given
 * before it.
 */
export class Vouch {
  private generation = 0;
  private on = false;

  /** The generation a vouch given now carries, or undefined while the reader is not reading. */
  get now(): number | undefined {
    return this.on ? this.generation : undefined;
  }

  /** The reader applied something the vouched streams may hold. */
  changed(): void {
    this.generation += 1;
  }

  /** Whether the reader is reading the log (in this process, applying what it reads). */
  reading(on: boolean): void {
    if (on === this.on) return;
    this.on = on;
    this.generation += 1;
  }
}
