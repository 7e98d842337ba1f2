import { comparePositions, type Position } from '../../store/types.ts';

/**
 * Read-your-writes for one service instance: every read that starts after a write this instance
 * acknowledged waits until the read models include that write. Reads pay nothing while no write
 * is pending; reads that start together share one wait; each read waits at most once, for at most
 * `timeoutMs`, and is answered either way.
 */
export class ReadYourWrites {
  /** The newest write this instance acknowledged. */
  private written: Position | undefined;
  /** The newest write the read models are known to include. */
  private included: Position | undefined;
  private waiting: { target: Position; done: Promise<void> } | undefined;

  constructor(
    /** True once the read models include `position`; false when `timeoutMs` passed first. */
    private readonly waitFor: (position: Position, timeoutMs: number) => Promise<boolean>,
    private readonly timeoutMs: number,
    private readonly onTimeout: () => void = () => {},
  ) {}

  noteWrite(position: Position): void {
    if (!this.written || comparePositions(position, this.written) > 0) this.written = position;
  }

  async fresh<T>(read: () => Promise<T>): Promise<T> {
    const target = this.written;
    if (target && !(this.included && comparePositions(this.included, target) >= 0)) {
      let w = this.waiting;
      if (!w || comparePositions(w.target, target) < 0) {
        const mine: { target: Position; done: Promise<void> } = { target, done: Promise.resolve() };
        mine.done = this.waitFor(target, this.timeoutMs).then(
          (ok) => this.settle(mine, ok),
          () => this.settle(mine, false),
        );
        this.waiting = w = mine;
      }
      await w.done;
    }
    return read();
  }

  private settle(w: { target: Position }, ok: boolean): void {
    if (!ok) this.onTimeout();
    else if (!this.included || comparePositions(w.target, this.included) > 0) this.included = w.target;
    if (this.waiting === w) this.waiting = undefined;
  }
}
