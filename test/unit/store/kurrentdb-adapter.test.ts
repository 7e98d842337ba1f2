import { randomUUID } from 'node:crypto';
import { AccessDeniedError, DeadlineExceededError, TimeoutError, UnavailableError, UnknownError } from '@kurrent/kurrentdb-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chainHash } from '../../../src/store/chain.ts';
import { classifyError } from '../../../src/http/errors.ts';
import { deadlineOf } from '../../../src/store/kurrentdb-connection.ts';
import { HASH_KEY, PROBE_STREAM, encodeMetadata } from '../../../src/store/kurrentdb-mapping.ts';
import { COUNT_CAP, KurrentEventStore, LEADER_ATTEMPTS, NoLeaderError } from '../../../src/store/kurrentdb-store.ts';
import { START, WrongExpectedRevisionError, type StreamWrite } from '../../../src/store/types.ts';
import {
  FakeKurrentClient,
  FakeKurrentLog,
  appendDeniedError,
  appendRaw,
  binaryEvent,
  expectChained,
  fakeStore,
  internalError,
  newEvent,
  notLeaderAppendError,
  readDeniedError,
  streamTwiceError,
} from '../../support/fake-kurrent.ts';

/**
 * The adapter's own logic, on an in-memory stand-in for the client (test/support/fake-kurrent)
 * that raises the client's real error classes. The stand-in models the server; what a server
 * really answers is not shown here.
 */

const ev = newEvent;
const setup = fakeStore;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('KurrentDB adapter: a leader change', () => {
  it('is what the client reports as an UnknownError, with no reconnection', () => {
    expect(notLeaderAppendError()).toBeInstanceOf(UnknownError);
  });

  it('sends a write refused by a follower once more on a new client, and closes the old one', async () => {
    const { store, clients, log } = setup(1);
    // Known from a read, the head spares the write any read of its own: the refusal is the append's.
    log.append([{ streamName: 'worker-1', expectedState: 'no_stream', events: [{ ...binaryEvent() }] }]);
    await new KurrentEventStore(() => new FakeKurrentClient(log)).readStream('worker-1');
    const r = await store.append([{ stream: 'worker-1', expectedRevision: 'any', events: [ev(), ev()] }]);
    expect(r.revisions).toEqual([{ stream: 'worker-1', revision: 2 }]);
    expect(clients).toHaveLength(2);
    expect(clients[0]!.closed).toBe(true);
    expect(clients[1]!.appendCalls).toHaveLength(1);
    expect(log.all).toHaveLength(3);
  });

  it('replaces the client once for all the writes a follower refused at the same time', async () => {
    const { store, clients, log } = setup(1);
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.append([{ stream: `w-${i}`, expectedRevision: 'no_stream', events: [ev()] }])),
    );
    expect(clients).toHaveLength(2);
    expect(log.all).toHaveLength(5);
  });

  it('aims the new client at the leader the refusal names, and tries again through an election', async () => {
    const { store, clients, aimedAt, log } = setup(3);
    await store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }]);
    expect(clients).toHaveLength(4);
    expect(aimedAt).toEqual([undefined, { host: 'node-2', port: 2113 }, { host: 'node-2', port: 2113 }, { host: 'node-2', port: 2113 }]);
    expect(log.all).toHaveLength(1);
  });

  it(`gives up after ${LEADER_ATTEMPTS} refusals with NoLeaderError, a 503, sending nothing more`, async () => {
    const { store, clients } = setup(100);
    // A write that expects no stream is chained without reading first: the refusals are the append's.
    const err = await store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoLeaderError);
    expect((err as Error).message).toBe(`no node of KurrentDB at node-1:2113 took the call as leader in ${LEADER_ATTEMPTS} attempts`);
    expect(classifyError(err).status).toBe(503);
    expect(clients).toHaveLength(LEADER_ATTEMPTS);
  });

  it('goes back to the connection string when the leader it was aimed at stops answering', async () => {
    const { store, clients, aimedAt } = setup(1);
    await store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }]);
    clients.at(-1)!.onAppend = () => {
      throw internalError();
    };
    await store.append([{ stream: 'w', expectedRevision: 0, events: [ev()] }]);
    expect(aimedAt).toEqual([undefined, { host: 'node-2', port: 2113 }, undefined]);
  });

  it('reads that require the leader are sent once more on a new client too', async () => {
    const { store, clients, log } = setup(1);
    log.append([
      {
        streamName: 'w',
        expectedState: 'any',
        events: [{ id: randomUUID(), type: 'T', contentType: 'application/json', data: {}, metadata: encodeMetadata(ev()) }],
      },
    ]);
    expect(await store.readStream('w')).toHaveLength(1);
    expect(clients).toHaveLength(2);
  });

  it('is seen by readiness: ping fails while appends reach only followers, though reads work', async () => {
    const stuck = setup(100);
    await expect(stuck.store.ping()).rejects.toBeInstanceOf(NoLeaderError);
    const recovering = setup(1);
    await recovering.store.ping();
    expect(recovering.clients).toHaveLength(2);
    // The probe expects a revision no stream reaches: nothing is written.
    expect(recovering.log.all).toHaveLength(0);
  });

  it('does not replace the client for other failures', async () => {
    const { store, clients, client } = setup();
    client().onAppend = () => {
      throw internalError();
    };
    await expect(store.append([{ stream: 'w', expectedRevision: 'any', events: [ev()] }])).rejects.toBeInstanceOf(UnavailableError);
    expect(clients).toHaveLength(1);
  });
});

describe('KurrentDB adapter: stream names', () => {
  it('refuses streams that differ only in case before sending, which the server answers with what the client calls a timeout', async () => {
    expect(streamTwiceError('w')).toBeInstanceOf(TimeoutError);
    const { store, client } = setup();
    await expect(
      store.append([
        { stream: 'Worker-1', expectedRevision: 'any', events: [ev()] },
        { stream: 'worker-1', expectedRevision: 'any', events: [ev()] },
      ]),
    ).rejects.toThrow('an append names the same stream twice (Worker-1 and worker-1 differ only in case)');
    expect(client().appendCalls).toHaveLength(0);
  });

  it('keeps streams apart that only look alike', async () => {
    const { store } = setup();
    const r = await store.append([
      { stream: 'straße', expectedRevision: 'any', events: [ev()] },
      { stream: 'STRASSE', expectedRevision: 'any', events: [ev()] },
    ]);
    expect(r.revisions.map((x) => x.revision)).toEqual([0, 0]);
  });
});

describe('KurrentDB adapter: counting and the head', () => {
  async function fill(store: KurrentEventStore, n: number) {
    for (let i = 0; i < n; i += 500) {
      await store.append([
        { stream: `bulk-${i}`, expectedRevision: 'no_stream', events: Array.from({ length: Math.min(500, n - i) }, () => ev()) },
      ]);
    }
  }

  it(`counts exactly below ${COUNT_CAP} and stops there, in one bounded read consumed to its end`, async () => {
    const { store, client, log } = setup();
    await fill(store, COUNT_CAP + 50);
    expect(await store.countAfter(START)).toBe(COUNT_CAP);
    expect(client().allReads.at(-1)!.maxCount).toBe(COUNT_CAP + 2);
    expect(await store.countAfter(log.all.at(-8)!.position)).toBe(7);
    expect(await store.countAfter(log.all.at(-1)!.position)).toBe(0);
    expect(client().openReads).toBe(0);
  });

  it('reads each event of the log about once across scrapes: a lag past the cap costs no read, a later one only what is new', async () => {
    const { store, client, log } = setup();
    await fill(store, COUNT_CAP + 50);
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now());
    const scrape = async (after: Parameters<KurrentEventStore['countAfter']>[0]) => {
      clock.mockReturnValue(Date.now() + 1_000 * ++scrapes);
      const before = client().allReads.length;
      const n = await store.countAfter(after);
      const read = client()
        .allReads.slice(before)
        .reduce((sum, o) => sum + Number(o.maxCount), 0);
      return { n, read };
    };
    let scrapes = 0;
    const checkpoint = log.all[10]!.position;
    expect((await scrape(checkpoint)).n).toBe(COUNT_CAP);
    // The projector has not moved: 10,000 or more behind, counted without reading.
    expect(await scrape(checkpoint)).toEqual({ n: COUNT_CAP, read: 0 });
    // It caught up to 20 events from the head, and 5 more were appended: the new ones are read.
    const near = log.all.at(-21)!.position;
    const first = await scrape(near);
    expect(first.n).toBe(20);
    await store.append([{ stream: 'more', expectedRevision: 'no_stream', events: Array.from({ length: 5 }, () => ev()) }]);
    const second = await scrape(near);
    expect(second.n).toBe(25);
    expect(client().allReads.at(-1)!.fromPosition).toEqual(log.all.at(-6)!.position);
  });

  it('answers every projector of one scrape from one read, and reads again a second later', async () => {
    const { store, client } = setup();
    await fill(store, 20);
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);
    const reads = client().allReads.length;
    expect(await Promise.all(Array.from({ length: 6 }, () => store.countAfter(START)))).toEqual(Array(6).fill(20));
    expect(client().allReads.length).toBe(reads + 1);
    await store.append([{ stream: 'more', expectedRevision: 'any', events: [ev()] }]);
    clock.mockReturnValue(now + 1_000);
    expect(await store.countAfter(START)).toBe(21);
    expect(client().allReads.length).toBe(reads + 2);
  });

  it('finds the head in bounded backward pages past events that are not ours, leaving no read open', async () => {
    const { store, client, log } = setup();
    expect(await store.headPosition()).toEqual(START);
    await store.append([{ stream: 'ours', expectedRevision: 'any', events: [ev()] }]);
    const ours = log.all.at(-1)!.position;
    // Forty events of another tool's stream the adapter leaves out (as it does the probe's).
    log.append([
      {
        streamName: PROBE_STREAM,
        expectedState: 'any',
        events: Array.from({ length: 40 }, () => ({
          id: randomUUID(),
          type: 'Other',
          contentType: 'application/json' as const,
          data: {},
          metadata: {},
        })),
      },
    ]);
    expect(await store.headPosition()).toEqual(ours);
    const heads = client().allReads.filter((o) => o.direction === 'backwards');
    expect(heads.length).toBeGreaterThan(1);
    for (const o of heads) expect(Number(o.maxCount)).toBeLessThanOrEqual(32);
    expect(client().openReads).toBe(0);
  });

  it('leaves no read open, whatever it reads', async () => {
    const { store, client, log } = setup();
    await fill(store, 40);
    expect(await store.readAll({ after: START, limit: 7 })).toHaveLength(7);
    expect((await store.readAll({ after: log.all[3]!.position, limit: 1 }))[0]!.id).toBe(log.all[4]!.id);
    await store.readStream('bulk-0', { fromRevision: 5 });
    await store.readStream('missing');
    await store.append([{ stream: 'bulk-0', expectedRevision: 39, events: [] }]);
    await store.ping();
    await store.headPosition();
    expect(client().openReads).toBe(0);
  });
});

describe('KurrentDB adapter: positions and reads after a write', () => {
  it("takes the position of an append from its reply, reading back nothing but the new streams' metadata", async () => {
    const { store, client, log } = setup();
    const r = await store.append([
      { stream: 'a', expectedRevision: 'no_stream', events: [ev(), ev()] },
      { stream: 'b', expectedRevision: 'no_stream', events: [ev()] },
    ]);
    expect(r.position).toEqual(log.all.at(-1)!.position);
    expect(client().streamReads.map((x) => x.stream)).toEqual(['$$a', '$$b']);
  });

  it("takes a repeat's position from the server's reply, the first attempt's, reading nothing back", async () => {
    const { store, client } = setup();
    const writes: StreamWrite[] = [{ stream: 'a', expectedRevision: 'no_stream', events: [ev(), ev()] }];
    const first = await store.append(writes);
    const again = await store.append(writes);
    expect(again).toEqual(first);
    expect(first.position.commit).toBeGreaterThan(0n);
    expect(client().streamReads.map((x) => x.stream)).toEqual(['$$a', '$$a']);
  });

  it('reads the position back from the leader when a reply has none (the server could not read the original event)', async () => {
    const { store, client } = setup();
    const writes: StreamWrite[] = [{ stream: 'a', expectedRevision: 'no_stream', events: [ev(), ev()] }];
    const first = await store.append(writes);
    client().onAppend = (_requests, storeIt) => ({ ...storeIt(), position: -1n });
    expect(await store.append(writes)).toEqual(first);
    expect(client().streamReads.length).toBeGreaterThan(0);
    for (const r of client().streamReads) expect(r.options.requiresLeader).toBe(true);
  });

  it('reads streams from the leader', async () => {
    const { store, client } = setup();
    await store.readStream('a');
    await store.readStreams([{ stream: 'b', fromRevision: 0 }]);
    await store.append([{ stream: 'c', expectedRevision: 'no_stream', events: [] }]);
    expect(client().streamReads.map((r) => r.options.requiresLeader)).toEqual([true, true, true]);
  });
});

describe('KurrentDB adapter: serialising', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;

  it.each([
    ['a BigInt', { big: 1n }, /cannot be serialised as JSON/],
    ['a cycle', cyclic, /cannot be serialised as JSON/],
    ['data that serialises to a string', { toJSON: () => 'text' }, /not a JSON object/],
  ])('refuses %s before calling the client', async (_label, data, message) => {
    const { store, client } = setup();
    await expect(
      store.append([{ stream: 'a', expectedRevision: 'any', events: [ev('T', data as Record<string, unknown>)] }]),
    ).rejects.toThrow(message);
    expect(client().appendCalls).toHaveLength(0);
  });

  it('refuses metadata it cannot serialise the same way', async () => {
    const { store, client } = setup();
    const e = { ...ev(), metadata: { n: 1n } };
    await expect(store.append([{ stream: 'a', expectedRevision: 'any', events: [e] }])).rejects.toThrow(/cannot be serialised as JSON/);
    expect(client().appendCalls).toHaveLength(0);
  });
});

describe('KurrentDB adapter: the rest of the port', () => {
  it('appendAny writes what append writes, and only writes that expect nothing', async () => {
    const { store, log } = setup();
    await expect(store.appendAny([{ stream: 'a', expectedRevision: 'no_stream', events: [ev()] }])).rejects.toThrow(
      /appendAny takes no expected revision/,
    );
    const r = await store.appendAny([
      { stream: 'a', expectedRevision: 'any', events: [ev(), ev()] },
      { stream: 'b', expectedRevision: 'any', events: [ev()] },
    ]);
    expect(r.revisions).toEqual([
      { stream: 'a', revision: 1 },
      { stream: 'b', revision: 0 },
    ]);
    expect(r.position).toEqual(log.all.at(-1)!.position);
  });

  it('readStreams reads each stream from its revision; a missing one is []', async () => {
    const { store } = setup();
    await store.append([
      { stream: 'a', expectedRevision: 'no_stream', events: [ev('A0'), ev('A1'), ev('A2')] },
      { stream: 'b', expectedRevision: 'no_stream', events: [ev('B0')] },
    ]);
    const read = await store.readStreams([
      { stream: 'a', fromRevision: 1 },
      { stream: 'b', fromRevision: 1 },
      { stream: 'c', fromRevision: 0 },
    ]);
    expect([...read].map(([s, events]) => [s, events.map((e) => e.type)])).toEqual([
      ['a', ['A1', 'A2']],
      ['b', []],
      ['c', []],
    ]);
  });

  it("close() closes the client, and a conflict still reads as the port's", async () => {
    const { store, client } = setup();
    await store.append([{ stream: 'a', expectedRevision: 'no_stream', events: [ev()] }]);
    await expect(store.append([{ stream: 'a', expectedRevision: 'no_stream', events: [ev()] }])).rejects.toBeInstanceOf(
      WrongExpectedRevisionError,
    );
    await store.close();
    expect(client().closed).toBe(true);
  });
});

describe('KurrentDB adapter: the hash chain', () => {
  it('sends a write that expects any revision expecting the head it was chained to, and chains it again after a race', async () => {
    const { store, log, client } = setup();
    await store.append([{ stream: 'unit', expectedRevision: 'no_stream', events: [ev()] }]);
    // Another process appends between this one's read of the head and its append.
    let raced = false;
    client().onAppend = (requests, storeIt) => {
      if (!raced) {
        raced = true;
        const stored = log.streams.get('unit')!;
        log.append([
          {
            streamName: 'unit',
            expectedState: BigInt(stored.length - 1),
            events: [
              {
                id: randomUUID(),
                type: 'Other',
                contentType: 'application/json',
                data: {},
                metadata: encodeMetadata(
                  ev(),
                  chainHash(stored.at(-1)!.metadata[HASH_KEY]!, {
                    stream: 'unit',
                    revision: stored.length,
                    type: 'Other',
                    version: 1,
                    data: {},
                    metadata: { requestId: 'r' },
                  }),
                ),
              },
            ],
          },
        ]);
      }
      return storeIt();
    };
    const r = await store.append([{ stream: 'unit', expectedRevision: 'any', events: [ev('Mine')] }]);
    expect(r.revisions).toEqual([{ stream: 'unit', revision: 2 }]);
    const sent = client()
      .appendCalls.slice(-2)
      .map((c) => c[0]!.expectedState);
    expect(sent).toEqual([0n, 1n]);
    expect((await store.readStream('unit')).map((e) => e.type)).toEqual(['Tick', 'Other', 'Mine']);
    await expectChained(store, ['unit']);
  });

  it('reads nothing before appending after an event it wrote or read last', async () => {
    const { store, client } = setup();
    await store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }]);
    await store.append([{ stream: 'w', expectedRevision: 0, events: [ev()] }]);
    await store.append([{ stream: 'w', expectedRevision: 'any', events: [ev()] }]);
    // Only the new stream's metadata, where a soft delete would show.
    expect(client().streamReads.map((x) => x.stream)).toEqual(['$$w']);
    await expectChained(store, ['w']);

    // Another store reads the stream first: its append chains after what it read.
    const second = new KurrentEventStore(() => new FakeKurrentClient(client().log));
    await second.readStream('w');
    await second.append([{ stream: 'w', expectedRevision: 2, events: [ev()] }]);
    await expectChained(store, ['w']);
  });

  it('chains a write that expects a revision after the event at that revision, read when not known', async () => {
    const { store, log } = setup();
    await store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev(), ev()] }]);
    const fresh = new KurrentEventStore(() => new FakeKurrentClient(log));
    await fresh.append([{ stream: 'w', expectedRevision: 1, events: [ev()] }]);
    await expect(fresh.append([{ stream: 'w', expectedRevision: 1, events: [ev()] }])).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expectChained(store, ['w']);
  });

  it("answers a repeat whose events are the stream's newest as its first attempt, storing nothing twice", async () => {
    const { store, log } = setup();
    const events = [ev(), ev()];
    await store.append([{ stream: 'w', expectedRevision: 'any', events }]);
    const again = await new KurrentEventStore(() => new FakeKurrentClient(log)).append([{ stream: 'w', expectedRevision: 'any', events }]);
    expect(again.revisions).toEqual([{ stream: 'w', revision: 1 }]);
    expect(log.all).toHaveLength(2);
  });

  it('refuses a write that expects an existing stream when there is none, sending nothing', async () => {
    const { store, client } = setup();
    await expect(store.append([{ stream: 'w', expectedRevision: 'stream_exists', events: [ev()] }])).rejects.toMatchObject({
      name: 'WrongExpectedRevisionError',
      actual: 'no_stream',
    });
    expect(client().appendCalls).toEqual([]);
  });
});

describe('KurrentDB adapter: reads that get no answer', () => {
  it("take the connection string's defaultDeadline, or the client's 10 s", () => {
    expect(deadlineOf('kurrentdb://node-1:2113?tls=false&defaultDeadline=2500')).toBe(2500);
    expect(deadlineOf('kurrentdb://node-1:2113?tls=false')).toBe(10_000);
  });

  it('end with DeadlineExceededError (a 503) at the deadline, for start-up, projectors, /metrics and readiness alike', async () => {
    const { store, client } = setup(0, 40);
    await store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }]);
    client().stallReads = true;
    const reads: [string, () => Promise<unknown>][] = [
      ['headPosition', () => store.headPosition()],
      ['readAll', () => store.readAll({ after: START, limit: 10 })],
      ['countAfter', () => store.countAfter(START)],
      ['readStream', () => store.readStream('w')],
      ['ping', () => store.ping()],
    ];
    for (const [name, read] of reads) {
      const started = Date.now();
      const err = await read().catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(DeadlineExceededError);
      expect((err as Error).message, name).toMatch(/did not answer a read of .* within 40 ms/);
      expect(classifyError(err).status, name).toBe(503);
      expect(Date.now() - started, name).toBeLessThan(1_000);
    }
  });
});

describe('KurrentDB adapter: a user without the permissions it needs', () => {
  const open = (denied: FakeKurrentClient['denied']) => {
    const log = new FakeKurrentLog();
    const clients: FakeKurrentClient[] = [];
    const opening = KurrentEventStore.open(() => {
      const c = new FakeKurrentClient(log);
      c.denied = denied;
      clients.push(c);
      return c;
    }, 'node-1:2113');
    return { opening, clients };
  };

  it('is refused at connect, in words that say what it may not do, when it may not read $all', async () => {
    expect(readDeniedError()).toBeInstanceOf(AccessDeniedError);
    const { opening, clients } = open({ readAll: true });
    await expect(opening).rejects.toThrow(
      'the user of KURRENTDB_URL may not read $all on KurrentDB at node-1:2113: $all is a system stream: connect as a member of $admins',
    );
    expect(clients.every((c) => c.closed)).toBe(true);
  });

  it('is refused at connect when it may not append', async () => {
    expect(appendDeniedError()).toBeInstanceOf(UnknownError);
    const { opening } = open({ append: true });
    await expect(opening).rejects.toThrow('the user of KURRENTDB_URL may not append to its streams on KurrentDB at node-1:2113');
  });

  it('names the permission when it is withdrawn while the service runs: the head, the projectors and readiness', async () => {
    const { opening, clients } = open({});
    const store = await opening;
    clients.at(-1)!.denied = { readAll: true };
    for (const read of [() => store.headPosition(), () => store.readAll({ after: START, limit: 5 }), () => store.ping()]) {
      await expect(read()).rejects.toThrow(/may not read \$all on KurrentDB at node-1:2113/);
    }
  });
});

describe('KurrentDB adapter: the probe of the append path', () => {
  it('never writes, even once its stream exists (which an expectation of an existing stream would meet)', async () => {
    const { store, log, client } = setup();
    appendRaw(log, PROBE_STREAM, 'no_stream', [binaryEvent()]);
    for (let i = 0; i < 3; i++) await store.ping();
    expect(log.streams.get(PROBE_STREAM)).toHaveLength(1);
    expect(client().appendCalls.map((c) => c[0]!.expectedState)).toEqual(Array(3).fill(BigInt(Number.MAX_SAFE_INTEGER)));
  });
});
