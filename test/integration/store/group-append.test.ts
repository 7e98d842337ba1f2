import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/types.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { DuplicateEventIdError, WrongExpectedRevisionError, comparePositions, type NewEvent } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const ev = (type: string): NewEvent => ({ id: randomUUID(), type, data: { type } });

describe('appends committed in groups (PostgreSQL store)', () => {
  let t: TestDb;
  let groups = 0;
  let sizes: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let failGroups = false;
  /** Set: the first group waits (at most a second) for a second one to reach the database. */
  let holdFirst: (() => void) | undefined;
  let secondArrived: Promise<void> = Promise.resolve();
  let store: PostgresEventStore;
  const s = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    t = await freshDb();
    // Counts the group calls that reach the database, and can make them fail as a whole.
    const db = Object.assign(Object.create(t.db) as Db, {
      query: (sql: string, params?: unknown[]) => {
        if (sql.includes('vac_append_batch')) {
          groups++;
          sizes.push((params![0] as number[]).length);
          if (failGroups) return Promise.reject(new Error('deadlock detected'));
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          // On a loaded machine the first group could be answered before the second is sent.
          const wait = holdFirst === undefined ? Promise.resolve() : groups === 1 ? secondArrived : (holdFirst(), Promise.resolve());
          return wait.then(() => t.db.query(sql, params)).finally(() => inFlight--);
        }
        return t.db.query(sql, params);
      },
    });
    store = new PostgresEventStore(db);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('gives each append of a group its own answer: the winner of a race, the loser, and the bystanders', async () => {
    const contested = s('contested');
    const bystanders = [s('by-a'), s('by-b'), s('by-c')];
    groups = 0;
    const results = await Promise.allSettled([
      store.append([{ stream: contested, expectedRevision: 'no_stream', events: [ev('First')] }]),
      store.append([{ stream: contested, expectedRevision: 'no_stream', events: [ev('Second')] }]),
      ...bystanders.map((b) => store.append([{ stream: b, expectedRevision: 'no_stream', events: [ev('A'), ev('B')] }])),
    ]);
    expect(groups).toBeGreaterThanOrEqual(1);
    expect(groups).toBeLessThanOrEqual(2);
    const [first, second, ...rest] = results;
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    expect((second as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream(contested)).map((e) => e.type)).toEqual(['First']);
    for (const [i, r] of rest.entries()) {
      expect(r.status).toBe('fulfilled');
      const v = (r as PromiseFulfilledResult<Awaited<ReturnType<PostgresEventStore['append']>>>).value;
      expect(v.revisions).toEqual([{ stream: bystanders[i], revision: 1 }]);
      const stored = await store.readStream(bystanders[i]!);
      expect(comparePositions(v.position, stored[1]!.position)).toBe(0);
    }
  });

  it('sends appends asked at once to streams of their own as two groups side by side, and keeps those sharing a stream in one', async () => {
    groups = 0;
    sizes = [];
    mostInFlight = 0;
    secondArrived = Promise.race([new Promise<void>((r) => (holdFirst = r)), new Promise<void>((r) => setTimeout(r, 1_000))]);
    const apart = Array.from({ length: 8 }, () => s('apart'));
    const results = await Promise.all(apart.map((stream) => store.append([{ stream, expectedRevision: 'no_stream', events: [ev('A')] }])));
    holdFirst = undefined;
    expect(results.map((r) => r.revisions)).toEqual(apart.map((stream) => [{ stream, revision: 0 }]));
    expect(sizes).toEqual([4, 4]);
    expect(mostInFlight).toBe(2);

    groups = 0;
    sizes = [];
    mostInFlight = 0;
    const month = s('unit-month');
    await Promise.all(
      apart.map((stream) =>
        store.append([
          { stream, expectedRevision: 0, events: [ev('B')] },
          { stream: month, expectedRevision: 'any', events: [ev('Booked')] },
        ]),
      ),
    );
    expect(sizes).toEqual([8]);
    expect((await store.readStream(month)).length).toBe(8);
  });

  it('shares a stream appended with "any" between the appends of a group, leaving out one refused on its own stream', async () => {
    const shared = s('unit-month');
    const own = [s('w1'), s('w2'), s('w3'), s('w4')];
    await store.append([{ stream: own[2]!, expectedRevision: 'no_stream', events: [ev('Existing')] }]);
    groups = 0;
    const results = await Promise.allSettled(
      own.map((stream, i) =>
        store.append([
          { stream, expectedRevision: 'no_stream', events: [ev(`Own${i}`)] },
          { stream: shared, expectedRevision: 'any', events: [ev(`Booked${i}`)] },
        ]),
      ),
    );
    expect(groups).toBeLessThanOrEqual(2);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ name: 'WrongExpectedRevisionError', stream: own[2] });
    const booked = await store.readStream(shared);
    expect(booked.map((e) => [e.revision, e.type])).toEqual([
      [0, 'Booked0'],
      [1, 'Booked1'],
      [2, 'Booked3'],
    ]);
    // Each append's answer names the revision its own write left the shared stream at, and its last event.
    const answers = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<PostgresEventStore['append']>>>).value);
    expect(answers.map((a) => a.revisions.find((x) => x.stream === shared)!.revision)).toEqual([0, 1, 2]);
    for (const [k, a] of answers.entries()) expect(comparePositions(a.position, booked[k]!.position)).toBe(0);
    expect(await store.readStream(own[2]!)).toHaveLength(1);
  });

  it('lets a later append of a group build on an earlier one, at the revision it left', async () => {
    const stream = s('chain');
    const [a, b] = await Promise.all([
      store.append([{ stream, expectedRevision: 'no_stream', events: [ev('One')] }]),
      store.append([{ stream, expectedRevision: 0, events: [ev('Two')] }]),
    ]);
    expect(a.revisions).toEqual([{ stream, revision: 0 }]);
    expect(b.revisions).toEqual([{ stream, revision: 1 }]);
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['One', 'Two']);
  });

  it('answers a retried append in a group as the original, and refuses one that repeats only some ids', async () => {
    const stream = s('retry');
    const events = [ev('X'), ev('Y')];
    const original = await store.append([{ stream, expectedRevision: 'no_stream', events }]);
    const other = s('other');
    const [again, partial, fresh] = await Promise.allSettled([
      store.append([{ stream, expectedRevision: 'no_stream', events }]),
      store.append([{ stream: s('partial'), expectedRevision: 'any', events: [events[0]!, ev('Z')] }]),
      store.append([{ stream: other, expectedRevision: 'any', events: [ev('W')] }]),
    ]);
    expect(again.status).toBe('fulfilled');
    expect((again as PromiseFulfilledResult<typeof original>).value).toEqual(original);
    expect(partial.status).toBe('rejected');
    expect((partial as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
    expect(fresh.status).toBe('fulfilled');
    expect(await store.readStream(stream)).toHaveLength(2);
  });

  it("answers large appends grouped together with each write's own revision and each append's last position", async () => {
    const shared = s('big-unit');
    const appends = Array.from({ length: 4 }, (_, k) => [
      ...Array.from({ length: 300 }, (_, i) => ({
        stream: s(`big-${k}-${i}`),
        expectedRevision: 'no_stream' as const,
        events: [ev('A'), ev('B')],
      })),
      { stream: shared, expectedRevision: 'any' as const, events: [ev(`Booked${k}`), ev(`Noted${k}`)] },
    ]);
    groups = 0;
    const results = await Promise.all(appends.map((writes) => store.append(writes)));
    expect(groups).toBeLessThanOrEqual(3);
    expect(await store.readStream(shared)).toHaveLength(8);
    for (const [k, r] of results.entries()) {
      expect(r.revisions.map((x) => x.stream)).toEqual(appends[k]!.map((w) => w.stream));
      let last = null as (typeof r)['position'] | null;
      for (const { stream, revision } of r.revisions) {
        const stored = await store.readStream(stream);
        expect(stored[revision]!.type).toBe(stream === shared ? `Noted${k}` : 'B');
        if (!last || comparePositions(stored[revision]!.position, last) > 0) last = stored[revision]!.position;
      }
      expect(comparePositions(r.position, last!)).toBe(0);
    }
  });

  it('makes each append again on its own when the group call fails as a whole', async () => {
    const streams = [s('alone-a'), s('alone-b'), s('alone-c')];
    failGroups = true;
    groups = 0;
    try {
      const results = await Promise.all(
        streams.map((stream) => store.append([{ stream, expectedRevision: 'no_stream', events: [ev('Solo')] }])),
      );
      expect(groups).toBe(1);
      expect(results.map((r) => r.revisions[0])).toEqual(streams.map((stream) => ({ stream, revision: 0 })));
    } finally {
      failGroups = false;
    }
    for (const stream of streams) expect(await store.readStream(stream)).toHaveLength(1);
  });
});
