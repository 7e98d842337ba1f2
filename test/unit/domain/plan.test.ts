/**
 * The annual vacation plan against checks written here from its rules, sharing nothing with
 * src/domain/plan.ts but the calendar helpers: each line is walked day by day against the
 * worker's business days, bookings and contract, and the subgerencia's people away are counted
 * per calendar day from the bookings and the lines themselves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTINUOUS_DAYS,
  HolidayCalendar,
  endDate,
  fromDayNumber,
  isBusinessDay,
  nextBusinessDay,
  planYear,
  toDayNumber,
  type Plan,
  type PlanInput,
  type PlanNeed,
  type PlanSubgerencia,
  type PlanWorker,
  type Span,
} from '../../../src/domain/index.ts';

const calendar = new HolidayCalendar();

function worker(workerId: number, fields: Partial<PlanWorker> = {}): PlanWorker {
  return {
    workerId,
    subgerenciaId: 'A',
    worksSaturday: false,
    daysOwed: 15,
    minimumDays: 6,
    need: 'pendiente',
    pendingUnits: 15 * 360,
    contractEnd: null,
    earliest: null,
    busy: [],
    ...fields,
  };
}

function input(workers: PlanWorker[], subgerencias: PlanSubgerencia[], from = '2027-01-01', year = 2027): PlanInput {
  return { year, from, workers, subgerencias, calendar };
}

const sub = (id: string, limit: number | null, occupied: Span[] = []): PlanSubgerencia => ({ id, limit, occupied });

const overlaps = (a: Span, b: Span) => a.startDate <= b.endDate && b.startDate <= a.endDate;

// ---- The checks, from the rules. ----

const NEED_RANK: Record<PlanNeed, number> = { prescribe: 0, acumula: 1, pendiente: 2 };
const needOrder = (workers: readonly PlanWorker[]) =>
  [...workers].sort((a, b) => NEED_RANK[a.need] - NEED_RANK[b.need] || b.pendingUnits - a.pendingUnits || a.workerId - b.workerId);

/** The business days of the worker's kind from `from` to the end of `year`, as day numbers. */
function businessDaysOf(from: string, year: number, worksSaturday: boolean): number[] {
  const days: number[] = [];
  for (let n = toDayNumber(from); n <= toDayNumber(`${year}-12-31`); n++) {
    if (isBusinessDay(fromDayNumber(n), worksSaturday, calendar)) days.push(n);
  }
  return days;
}

/** Every rule of the plan, checked from the input and the lines alone; throws on the first broken one. */
function checkPlan(plan: Plan, given: PlanInput): void {
  const yearStart = `${given.year}-01-01`;
  const yearEnd = `${given.year}-12-31`;
  const windowStart = given.from > yearStart ? given.from : yearStart;
  const byId = new Map(given.workers.map((w) => [w.workerId, w]));
  const subs = new Map(given.subgerencias.map((s) => [s.id, s]));

  const listed = [...plan.lines.map((l) => l.workerId), ...plan.leftOut.map((l) => l.workerId)].sort((a, b) => a - b);
  expect(listed).toEqual(given.workers.map((w) => w.workerId).sort((a, b) => a - b));

  // People away per calendar day and subgerencia: one for each booking, one for each line.
  const away = new Map<string, Map<number, number>>();
  const count = (subId: string, span: Span) => {
    let days = away.get(subId);
    if (!days) away.set(subId, (days = new Map()));
    for (let n = toDayNumber(span.startDate); n <= toDayNumber(span.endDate); n++) days.set(n, (days.get(n) ?? 0) + 1);
  };
  for (const s of given.subgerencias) for (const span of s.occupied) count(s.id, span);

  for (const line of plan.lines) {
    const w = byId.get(line.workerId)!;
    expect(line.subgerenciaId).toBe(w.subgerenciaId);
    expect(line.need).toBe(w.need);
    expect(line.days).toBe(w.daysOwed);
    expect(line.days).toBeGreaterThanOrEqual(Math.max(w.minimumDays, CONTINUOUS_DAYS));
    expect(isBusinessDay(line.startDate, w.worksSaturday, calendar)).toBe(true);
    expect(line.endDate).toBe(endDate(line.startDate, line.days, w.worksSaturday, calendar));
    expect(line.startDate >= windowStart).toBe(true);
    if (w.earliest !== null) expect(line.startDate >= w.earliest, `worker ${w.workerId} before ${w.earliest}`).toBe(true);
    expect(line.endDate <= yearEnd).toBe(true);
    if (w.contractEnd !== null) expect(line.endDate <= w.contractEnd).toBe(true);
    for (const span of w.busy) expect(overlaps(line, span), `worker ${w.workerId} booked over ${span.startDate}`).toBe(false);
    count(line.subgerenciaId, line);
  }
  for (const line of plan.lines) {
    const limit = subs.get(line.subgerenciaId)!.limit;
    if (limit === null) continue;
    const days = away.get(line.subgerenciaId)!;
    for (let n = toDayNumber(line.startDate); n <= toDayNumber(line.endDate); n++) {
      expect(days.get(n), `${fromDayNumber(n)} in ${line.subgerenciaId}`).toBeLessThanOrEqual(limit);
    }
  }

  const tables = new Map<boolean, number[]>();
  const businessDays = (worksSaturday: boolean) => {
    if (!tables.has(worksSaturday)) tables.set(worksSaturday, businessDaysOf(windowStart, given.year, worksSaturday));
    return tables.get(worksSaturday)!;
  };
  for (const out of plan.leftOut) {
    const w = byId.get(out.workerId)!;
    expect(out.subgerenciaId).toBe(w.subgerenciaId);
    expect(out.need).toBe(w.need);
    const s = subs.get(w.subgerenciaId);
    const lastDay = w.contractEnd !== null && w.contractEnd < yearEnd ? w.contractEnd : yearEnd;
    const from = w.earliest !== null && w.earliest > windowStart ? w.earliest : windowStart;
    const firstStart = nextBusinessDay(from, w.worksSaturday, calendar);
    let expected: string;
    if (!s) expected = 'sinSubgerencia';
    else if (w.daysOwed < Math.max(w.minimumDays, CONTINUOUS_DAYS)) expected = 'pocosDias';
    else if (from > yearEnd || endDate(firstStart, w.daysOwed, w.worksSaturday, calendar) > lastDay) expected = 'finContrato';
    else expected = 'sinCupo';
    expect(out.reason, `worker ${w.workerId}`).toBe(expected);
    if (expected !== 'sinCupo') continue;
    // Left out for want of room: not one start fits even now, with every line of the plan in place.
    const days = businessDays(w.worksSaturday);
    const limit = s!.limit;
    const taken = away.get(w.subgerenciaId) ?? new Map<number, number>();
    const busy = w.busy.map((b) => [toDayNumber(b.startDate), toDayNumber(b.endDate)] as const);
    for (let r = 0; r + w.daysOwed - 1 < days.length; r++) {
      const start = days[r]!;
      if (start < toDayNumber(from)) continue;
      const end = days[r + w.daysOwed - 1]!;
      if (end > toDayNumber(lastDay)) break;
      const blocked = busy.some(([a, b]) => a <= end && start <= b);
      let full = false;
      for (let n = start; !blocked && !full && n <= end; n++) full = limit !== null && (taken.get(n) ?? 0) >= limit;
      expect(blocked || full, `worker ${w.workerId} fits from ${fromDayNumber(start)}`).toBe(true);
    }
  }

  const position = new Map(needOrder(given.workers).map((w, i) => [w.workerId, i]));
  for (let i = 1; i < plan.leftOut.length; i++) {
    expect(position.get(plan.leftOut[i - 1]!.workerId)!).toBeLessThan(position.get(plan.leftOut[i]!.workerId)!);
  }
  for (let i = 1; i < plan.lines.length; i++) {
    const [a, b] = [plan.lines[i - 1]!, plan.lines[i]!];
    expect(a.startDate < b.startDate || (a.startDate === b.startDate && a.workerId < b.workerId)).toBe(true);
  }
  const prescribing = plan.leftOut.filter((l) => l.need === 'prescribe').reduce((sum, l) => sum + byId.get(l.workerId)!.daysOwed, 0);
  expect(plan.totals).toEqual({ placed: plan.lines.length, leftOut: plan.leftOut.length, prescribingDaysLeft: prescribing });
}

// ---- Examples. ----

describe('planYear, examples', () => {
  it('given a worker whose days are earned in September, then the line starts no earlier, and one earned too late for the year is left out', () => {
    const given = input([worker(1, { earliest: '2027-09-02' }), worker(2, { earliest: '2027-12-24' })], [sub('A', null)]);
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.lines.map((l) => [l.workerId, l.startDate >= '2027-09-02'])).toEqual([[1, true]]);
    expect(plan.leftOut.map((l) => [l.workerId, l.reason])).toEqual([[2, 'finContrato']]);
  });

  it('given a subgerencia with room for one at a time and three workers, then no two lines share a day', () => {
    const given = input([worker(1), worker(2), worker(3)], [sub('A', 1)]);
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.lines).toHaveLength(3);
    for (const a of plan.lines) for (const b of plan.lines) if (a !== b) expect(overlaps(a, b)).toBe(false);
  });

  it('given room for a single line in December, then the worker whose days would prescribe gets it, whatever the others owe', () => {
    const given = input(
      [
        worker(1, { need: 'pendiente', pendingUnits: 40 * 360 }),
        worker(2, { need: 'acumula', pendingUnits: 30 * 360 }),
        worker(3, { need: 'prescribe', pendingUnits: 360 }),
      ],
      [sub('A', 1)],
      '2027-12-01',
    );
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.lines.map((l) => l.workerId)).toEqual([3]);
    expect(plan.leftOut).toEqual([
      { workerId: 2, subgerenciaId: 'A', reason: 'sinCupo', need: 'acumula' },
      { workerId: 1, subgerenciaId: 'A', reason: 'sinCupo', need: 'pendiente' },
    ]);
    expect(plan.totals).toEqual({ placed: 1, leftOut: 2, prescribingDaysLeft: 0 });
  });

  it('given two workers whose days would prescribe and room for one, then the one owing more is placed and the other counts in prescribingDaysLeft', () => {
    const given = input(
      [worker(7, { need: 'prescribe', pendingUnits: 15 * 360 }), worker(8, { need: 'prescribe', pendingUnits: 20 * 360, daysOwed: 16 })],
      [sub('A', 1)],
      '2027-12-01',
    );
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.lines.map((l) => l.workerId)).toEqual([8]);
    expect(plan.totals.prescribingDaysLeft).toBe(15);
  });

  it('given a year that opens on a holiday, then the first line starts on the first business day of each kind of worker', () => {
    const given = input([worker(1), worker(2, { subgerenciaId: 'B', worksSaturday: true })], [sub('A', null), sub('B', null)]);
    const plan = planYear(given);
    checkPlan(plan, given);
    // 2027-01-01 is a holiday (a Friday), 01-03 a Sunday, 01-11 the Epiphany moved to Monday.
    expect(plan.lines).toEqual([
      { workerId: 2, subgerenciaId: 'B', startDate: '2027-01-02', endDate: '2027-01-20', days: 15, need: 'pendiente' },
      { workerId: 1, subgerenciaId: 'A', startDate: '2027-01-04', endDate: '2027-01-25', days: 15, need: 'pendiente' },
    ]);
  });

  it('given a contract that ends before the first possible line could, then the worker is left out with finContrato', () => {
    const given = input(
      [worker(1, { contractEnd: '2027-01-20' }), worker(2, { contractEnd: '2027-03-31' }), worker(3, { contractEnd: '2026-12-31' })],
      [sub('A', null)],
    );
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.leftOut.map((l) => [l.workerId, l.reason])).toEqual([
      [1, 'finContrato'],
      [3, 'finContrato'],
    ]);
    expect(plan.lines.map((l) => l.workerId)).toEqual([2]);
    expect(plan.lines[0]!.endDate <= '2027-03-31').toBe(true);
  });

  it('given too few days left in the year for the line, then the worker is left out with finContrato', () => {
    const given = input([worker(1, { daysOwed: 30 }), worker(2, { daysOwed: 6 })], [sub('A', null)], '2027-12-01');
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.leftOut).toEqual([{ workerId: 1, subgerenciaId: 'A', reason: 'finContrato', need: 'pendiente' }]);
    expect(planYear(input([worker(1)], [sub('A', null)], '2028-01-05')).leftOut[0]!.reason).toBe('finContrato');
  });

  it('given fewer days owed than six or than the contract minimum, then the worker is left out with pocosDias', () => {
    const given = input(
      [worker(1, { daysOwed: 5, minimumDays: 0 }), worker(2, { daysOwed: 10, minimumDays: 15 }), worker(3, { minimumDays: 15 })],
      [sub('A', null)],
    );
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.leftOut.map((l) => [l.workerId, l.reason])).toEqual([
      [1, 'pocosDias'],
      [2, 'pocosDias'],
    ]);
    expect(plan.lines.map((l) => l.workerId)).toEqual([3]);
  });

  it('given a subgerencia not in the input, then its worker is left out with sinSubgerencia', () => {
    const given = input([worker(1, { subgerenciaId: 'Z', need: 'prescribe' })], [sub('A', null)]);
    const plan = planYear(given);
    expect(plan.leftOut).toEqual([{ workerId: 1, subgerenciaId: 'Z', reason: 'sinSubgerencia', need: 'prescribe' }]);
    expect(plan.totals.prescribingDaysLeft).toBe(15);
  });

  it("given the worker's own bookings over most of the year, then the line falls in the days left free", () => {
    const busy = [{ startDate: '2027-01-01', endDate: '2027-11-30' }];
    const given = input([worker(1, { busy })], [sub('A', null, busy)]);
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.lines[0]!.startDate >= '2027-12-01').toBe(true);
  });

  it('given a subgerencia at its limit all year but July, then the line falls in July', () => {
    const occupied = [
      { startDate: '2027-01-01', endDate: '2027-06-30' },
      { startDate: '2027-08-01', endDate: '2027-12-31' },
    ];
    const given = input([worker(1)], [sub('A', 1, occupied)]);
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.lines[0]!.startDate >= '2027-07-01' && plan.lines[0]!.endDate <= '2027-07-31').toBe(true);
    expect(planYear(input([worker(1, { daysOwed: 20 })], [sub('A', 1, occupied)])).leftOut[0]!.reason).toBe('sinCupo');
  });

  it('given no limit and twelve workers, then their starts are spread over the year, not piled on January', () => {
    const given = input(
      Array.from({ length: 12 }, (_, i) => worker(i + 1)),
      [sub('A', null)],
    );
    const plan = planYear(given);
    checkPlan(plan, given);
    const starts = plan.lines.map((l) => l.startDate);
    expect(new Set(starts.map((d) => d.slice(0, 7))).size).toBeGreaterThanOrEqual(10);
    expect(toDayNumber(starts.at(-1)!) - toDayNumber(starts[0]!)).toBeGreaterThan(270);
  });

  it('given room for thirty-five 7-day lines only back to back, then all are placed, though spread targets alone would leave gaps too short for one', () => {
    // 2027 has 245 business days Monday to Friday: exactly 35 lines of 7, with no day to spare.
    const given = input(
      Array.from({ length: 35 }, (_, i) => worker(i + 1, { daysOwed: 7 })),
      [sub('A', 1)],
    );
    const plan = planYear(given);
    checkPlan(plan, given);
    expect(plan.leftOut).toEqual([]);
  });

  it('given a worker twice, a span that ends before it starts, or a bad date, then the plan is refused', () => {
    expect(() => planYear(input([worker(1), worker(1)], [sub('A', null)]))).toThrow(RangeError);
    expect(() => planYear(input([worker(1, { busy: [{ startDate: '2027-02-02', endDate: '2027-02-01' }] })], [sub('A', null)]))).toThrow(
      RangeError,
    );
    expect(() => planYear(input([worker(1, { contractEnd: '2027-02-30' })], [sub('A', null)]))).toThrow(RangeError);
    expect(() => planYear(input([worker(1, { daysOwed: 0 })], [sub('A', null)]))).toThrow(RangeError);
    expect(() => planYear(input([worker(1)], [sub('A', null), sub('A', 2)]))).toThrow(RangeError);
  });
});

// ---- Properties. ----

const NEEDS: PlanNeed[] = ['prescribe', 'acumula', 'pendiente'];

const spanArb = (year: number) =>
  fc.record({ start: fc.integer({ min: -20, max: 370 }), length: fc.integer({ min: 1, max: 40 }) }).map(({ start, length }) => {
    const first = toDayNumber(`${year}-01-01`) + start;
    return { startDate: fromDayNumber(first), endDate: fromDayNumber(first + length - 1) };
  });

const workerArb = (year: number) =>
  fc.record({
    worksSaturday: fc.boolean(),
    daysOwed: fc.oneof(fc.integer({ min: 6, max: 30 }), fc.integer({ min: 1, max: 30 })),
    minimumDays: fc.integer({ min: 6, max: 15 }),
    need: fc.constantFrom(...NEEDS),
    // Few values, so that ties within a need fall to the worker id.
    pendingUnits: fc.integer({ min: 0, max: 3 }).map((n) => n * 360),
    contractEnd: fc.option(
      fc.integer({ min: -10, max: 400 }).map((n) => fromDayNumber(toDayNumber(`${year}-01-01`) + n)),
      { nil: null, freq: 3 },
    ),
    earliest: fc.option(
      fc.integer({ min: -10, max: 380 }).map((n) => fromDayNumber(toDayNumber(`${year}-01-01`) + n)),
      { nil: null, freq: 3 },
    ),
    own: fc.array(spanArb(year), { maxLength: 3 }),
    closures: fc.nat(3),
  });

const scenarioArb = fc.constantFrom(2026, 2027, 2028).chain((year) =>
  fc.record({
    year: fc.constant(year),
    from: fc.oneof(fc.constant(0), fc.integer({ min: -30, max: 330 })).map((n) => fromDayNumber(toDayNumber(`${year}-01-01`) + n)),
    subgerencias: fc.array(
      fc.record({
        limit: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null, freq: 4 }),
        closures: fc.array(spanArb(year), { maxLength: 2 }),
        others: fc.array(spanArb(year), { maxLength: 4 }),
        workers: fc.array(workerArb(year), { minLength: 1, maxLength: 30 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    strays: fc.array(workerArb(year), { maxLength: 2 }),
    shuffle: fc.integer(),
  }),
);

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * Builds the input: a worker's busy spans are its own bookings and the closures it shares, and
 * its subgerencia's occupied days hold each of them once per worker, plus bookings of people
 * outside the plan.
 */
function build(s: Scenario): PlanInput {
  const workers: PlanWorker[] = [];
  const subgerencias: PlanSubgerencia[] = [];
  s.subgerencias.forEach((g, i) => {
    const id = `S${i}`;
    const occupied: Span[] = [...g.others];
    for (const w of g.workers) {
      const busy = [...w.own, ...g.closures.filter((_, j) => (w.closures >> j) & 1)];
      occupied.push(...busy);
      workers.push({ ...fields(w), workerId: workers.length * 3 + 1, subgerenciaId: id, busy });
    }
    subgerencias.push({ id, limit: g.limit, occupied });
  });
  for (const w of s.strays) workers.push({ ...fields(w), workerId: workers.length * 3 + 1, subgerenciaId: 'unknown', busy: w.own });
  return { year: s.year, from: s.from, workers, subgerencias, calendar };
}

function fields(w: Scenario['strays'][number]) {
  const { worksSaturday, daysOwed, minimumDays, need, pendingUnits, contractEnd, earliest } = w;
  return { worksSaturday, daysOwed, minimumDays, need, pendingUnits, contractEnd, earliest };
}

/** A reordering fixed by the seed, so a failure replays. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('planYear, properties', () => {
  it('every line starts on a business day, ends where its days end, within the window and the contract, clear of bookings and limits; every worker is accounted once, with the reason the rules give', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const given = build(s);
        checkPlan(planYear(given), given);
      }),
      { numRuns: 200 },
    );
  });

  it('the same input, in any order of workers and subgerencias, gives the same plan', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const given = build(s);
        const plan = planYear(given);
        expect(planYear(given)).toEqual(plan);
        expect(
          planYear({ ...given, workers: shuffled(given.workers, s.shuffle), subgerencias: shuffled(given.subgerencias, s.shuffle + 1) }),
        ).toEqual(plan);
      }),
      { numRuns: 100 },
    );
  });

  it('given no limit, or one at least the number of workers, no bookings, no contract ends, and the whole year, then everyone is placed', () => {
    const arb = fc.constantFrom(2026, 2027, 2028).chain((year) =>
      fc.record({
        year: fc.constant(year),
        subgerencias: fc.array(
          fc.array(
            fc.record({
              worksSaturday: fc.boolean(),
              daysOwed: fc.integer({ min: 6, max: 30 }),
              need: fc.constantFrom(...NEEDS),
              pendingUnits: fc.nat(20_000),
            }),
            { minLength: 1, maxLength: 30 },
          ),
          { minLength: 1, maxLength: 3 },
        ),
        spare: fc.option(fc.nat(3), { nil: null }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ year, subgerencias, spare }) => {
        const workers: PlanWorker[] = [];
        const subs = subgerencias.map((g, i) => {
          for (const w of g) workers.push(worker(workers.length + 1, { ...w, subgerenciaId: `S${i}`, minimumDays: 6 }));
          return sub(`S${i}`, spare === null ? null : g.length + spare);
        });
        const given = input(workers, subs, `${year}-01-01`, year);
        const plan = planYear(given);
        checkPlan(plan, given);
        expect(plan.leftOut).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  // With lines of one length L and one kind of business day, limit m fits at most m × ⌊B / L⌋
  // lines in B business days (m rows of lines back to back), and placing each at its earliest
  // start reaches exactly that.
  const equalArb = fc.constantFrom(2026, 2027, 2028).chain((year) =>
    fc.record({
      year: fc.constant(year),
      from: fc.integer({ min: 0, max: 300 }).map((n) => fromDayNumber(toDayNumber(`${year}-01-01`) + n)),
      worksSaturday: fc.boolean(),
      days: fc.integer({ min: 6, max: 30 }),
      limit: fc.integer({ min: 1, max: 5 }),
      fill: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
      needs: fc.array(fc.record({ need: fc.constantFrom(...NEEDS), pendingUnits: fc.nat(3) }), { minLength: 300, maxLength: 300 }),
      extra: fc.integer({ min: 1, max: 5 }),
    }),
  );
  const equalInput = (e: typeof equalArb extends fc.Arbitrary<infer T> ? T : never, n: number) =>
    input(
      Array.from({ length: n }, (_, i) =>
        worker(i + 1, { worksSaturday: e.worksSaturday, daysOwed: e.days, need: e.needs[i]!.need, pendingUnits: e.needs[i]!.pendingUnits }),
      ),
      [sub('A', e.limit)],
      e.from,
      e.year,
    );
  const capacity = (e: { from: string; year: number; worksSaturday: boolean; days: number; limit: number }) =>
    e.limit * Math.floor(businessDaysOf(e.from, e.year, e.worksSaturday).length / e.days);

  it('given lines of one length L, one kind of business day, no bookings and n ≤ limit × ⌊business days in the window / L⌋, then everyone is placed', () => {
    fc.assert(
      fc.property(equalArb, (e) => {
        const n = Math.max(1, Math.round(capacity(e) * e.fill));
        fc.pre(capacity(e) >= 1);
        const given = equalInput(e, n);
        const plan = planYear(given);
        checkPlan(plan, given);
        expect(plan.leftOut).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('given the same but a few workers more than limit × ⌊business days in the window / L⌋, then exactly that many are placed and the last in need order are left out', () => {
    fc.assert(
      fc.property(equalArb, (e) => {
        const cap = capacity(e);
        const given = equalInput(e, cap + e.extra);
        const plan = planYear(given);
        checkPlan(plan, given);
        expect(plan.lines).toHaveLength(cap);
        expect(plan.leftOut.map((l) => l.workerId)).toEqual(
          needOrder(given.workers)
            .slice(cap)
            .map((w) => w.workerId),
        );
      }),
      { numRuns: 100 },
    );
  });
});

describe('planYear, scale', () => {
  it('given 20,000 workers in 8 subgerencias, then the plan is done in seconds, not minutes', () => {
    let state = 12345;
    const next = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % n;
    };
    const day = (offset: number) => fromDayNumber(toDayNumber('2027-01-01') + offset);
    const subgerencias = Array.from({ length: 8 }, (_, i) => ({ id: `S${i}`, limit: 1 + (i % 5), occupied: [] as Span[] }));
    const workers = Array.from({ length: 20_000 }, (_, i) => {
      const subId = i % 8;
      // Bookings are sparse, as in a company, so that the limits leave room to place people.
      const busy = Array.from({ length: next(40) === 0 ? 1 + next(2) : 0 }, () => {
        const start = next(360);
        return { startDate: day(start), endDate: day(start + next(20)) };
      });
      subgerencias[subId]!.occupied.push(...busy);
      return worker(i + 1, {
        subgerenciaId: `S${subId}`,
        worksSaturday: next(2) === 0,
        daysOwed: 6 + next(25),
        need: NEEDS[next(3)]!,
        pendingUnits: next(10_000),
        busy,
      });
    });
    const started = performance.now();
    const plan = planYear(input(workers, subgerencias));
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(plan.totals.placed + plan.totals.leftOut).toBe(20_000);
    expect(plan.totals.placed).toBeGreaterThan(0);
  });
});
