/**
 * The cursor of a paged report: opaque to callers, and bound to the report it pages (a month, a
 * cut-off date), so that one given for another is refused rather than read as a position in it.
 */
export function pageCursor(tag: string) {
  const shape = new RegExp(`^${tag}:([0-9-]{7,10}):(-?\\d{1,16})$`);
  return {
    /** The cursor of the page after worker `worker` of report `key`. */
    of: (key: string, worker: number) => Buffer.from(`${tag}:${key}:${worker}`).toString('base64url'),
    /** The worker a cursor of report `key` continues after; undefined when it is not one. */
    workerOf(cursor: string, key: string): number | undefined {
      const m = shape.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
      return m && m[1] === key ? Number(m[2]) : undefined;
    },
  };
}
