const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An as-of time (replay, export) as epoch milliseconds, or undefined when it is neither an ISO
 * time nor a date. A bare date means the whole of that day in Bogotá (UTC-5, no daylight
 * saving), which is how people there name a day.
 */
export function asOfTime(s: string): number | undefined {
  if (DATE.test(s)) {
    const t = Date.parse(`${s}T23:59:59.999-05:00`);
    const [y, m, d] = s.split('-').map(Number) as [number, number, number];
    const check = new Date(Date.UTC(y, m - 1, d));
    if (!Number.isNaN(t) && check.getUTCMonth() === m - 1 && check.getUTCDate() === d) return t;
  } else {
    const t = Date.parse(s);
    if (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(t)) return t;
  }
  return undefined;
}

/**
 * One stream as it stood at a time: its events up to its last one recorded at or before it, with
 * every revision before that one whenever it was recorded. A recording time is when the
 * appending transaction began, so under contention a later revision may carry an earlier time;
 * a prefix of the chain is what can be verified on its own, and what an export as of the same
 * time holds (the store's EventsQuery.asOf keeps the same rule). `events` in revision order.
 */
export function streamAsOf<E extends { recordedAt: string }>(events: E[], asOf: number): E[] {
  const last = events.findLastIndex((e) => Date.parse(e.recordedAt) <= asOf);
  return events.slice(0, last + 1);
}
