import { DeadlineExceededError, UnavailableError, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../src/http/errors.ts';
import { chainHash } from '../../../src/store/chain.ts';
import { CHAIN_ATTEMPTS, HEAD_WINDOW, UNKNOWN_RESENDS, UNREACHABLE_REVISION } from '../../../src/store/kurrentdb-append.ts';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import { BatchedAppender } from '../../../src/caching/batched-appender.ts';
import { ContendedStreamError, DuplicateEventIdError, type StreamWrite } from '../../../src/store/types.ts';
import {
  FakeKurrentClient,
  appendRaw,
  binaryEvent,
  clientDeadlineError,
  commitTimeoutError,
  conflictError,
  expectChained,
  fakeStore,
  internalError,
  newEvent as ev,
} from '../../support/fake-kurrent.ts';

/**
 * How the KurrentDB adapter appends when others write too, on the in-memory model of a 25.1 node
 * (test/support/fake-kurrent.ts), which raises the client's own error classes, made by the
 * client's converter from the gRPC status the server's source sends.
 */

/** A second process on the same log: its own client, its own memory of stream heads. */
const otherProcess = (store: { log: ConstructorParameters<typeof FakeKurrentClient>[0] }) =>
  new KurrentEventStore(() => new FakeKurrentClient(store.log));

describe('KurrentDB adapter: conflicts', () => {
  it('reads only the stream that conflicted, once, when another process wrote one stream of a batch', async () => {
    const s = fakeStore();
    const streams = Array.from({ length: 50 }, (_, i) => `audit-worker-${i}`);
    await s.store.appendAny(streams.map((stream) => ({ stream, expectedRevision: 'any', events: [ev()] })));
    await otherProcess(s).appendAny([{ stream: 'audit-worker-17', expectedRevision: 'any', events: [ev('Theirs')] }]);

    const reads = s.client().streamReads.length;
    const appends = s.client().appendCalls.length;
    await s.store.appendAny(streams.map((stream) => ({ stream, expectedRevision: 'any', events: [ev('Mine')] })));
    expect(
      s
        .client()
        .streamReads.slice(reads)
        .map((r) => r.stream),
    ).toEqual(['audit-worker-17']);
    expect(s.client().appendCalls.length - appends).toBe(2);
    expect((await s.store.readStream('audit-worker-17')).map((e) => e.type)).toEqual(['Tick', 'Theirs', 'Mine']);
    await expectChained(s.store, streams);
  });

  it(`gives up after ${CHAIN_ATTEMPTS} lost races with ContendedStreamError, a 503, having read only the contended stream`, async () => {
    const s = fakeStore();
    await s.store.append([{ stream: 'busy', expectedRevision: 'no_stream', events: [ev()] }]);
    // Before each of this store's appends lands, another writer lands one on the same stream.
    s.client().onAppend = (requests, storeIt) => {
      appendRaw(s.log, 'busy', 'any', [{ ...binaryEvent() }]);
      return storeIt();
    };
    const reads = s.client().streamReads.length;
    const err = await s.store
      .appendAny([
        { stream: 'busy', expectedRevision: 'any', events: [ev()] },
        { stream: 'quiet', expectedRevision: 'any', events: [ev()] },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContendedStreamError);
    expect(classifyError(err).status).toBe(503);
    // The new stream's head once, then the contended stream's after each lost race but the last.
    const read = s
      .client()
      .streamReads.slice(reads)
      .map((r) => r.stream);
    expect(read).toEqual(['quiet', '$$quiet', ...Array<string>(CHAIN_ATTEMPTS - 1).fill('busy')]);
    expect(s.log.streams.get('quiet')).toBeUndefined();
  });

  it("never fails a consult's audit record for another stream's contention: the batch is written record by record", async () => {
    const s = fakeStore();
    await s.store.append([{ stream: 'audit-worker-1', expectedRevision: 'no_stream', events: [ev()] }]);
    s.client().onAppend = (requests, storeIt) => {
      if (requests.some((r) => r.streamName === 'audit-worker-1')) appendRaw(s.log, 'audit-worker-1', 'any', [binaryEvent()]);
      return storeIt();
    };
    const audits = new BatchedAppender(s.store);
    const records = ['audit-worker-1', 'audit-worker-2', 'audit-worker-3', 'audit-worker-2'].map((stream) =>
      audits.append([{ stream, expectedRevision: 'any', events: [ev('VacationDataConsulted')] }]).then(
        () => 'stored',
        (e: unknown) => (e as Error).name,
      ),
    );
    expect(await Promise.all(records)).toEqual(['ContendedStreamError', 'stored', 'stored', 'stored']);
    expect(s.log.streams.get('audit-worker-2')).toHaveLength(2);
    await expectChained(s.store, ['audit-worker-2', 'audit-worker-3']);
  });

  it("lets a conflict on an expectation the caller set through, reading nothing but the stream's metadata", async () => {
    const s = fakeStore();
    await s.store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }]);
    expect(conflictError('w', -1n, 0n)).toBeInstanceOf(WrongExpectedVersionError);
    const reads = s.client().streamReads.length;
    await expect(s.store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }])).rejects.toMatchObject({
      name: 'WrongExpectedRevisionError',
      stream: 'w',
      actual: 0,
    });
    expect(
      s
        .client()
        .streamReads.slice(reads)
        .map((r) => r.stream),
    ).toEqual(['$$w']);
  });
});

describe("KurrentDB adapter: another tool's event at a stream's head", () => {
  it('is the head an append that expects any revision lands after, at the first attempt', async () => {
    const s = fakeStore();
    await s.store.append([{ stream: 'unit-1', expectedRevision: 'no_stream', events: [ev()] }]);
    appendRaw(s.log, 'unit-1', 'any', [binaryEvent()]);
    const fresh = otherProcess(s);
    const r = await fresh.append([{ stream: 'unit-1', expectedRevision: 'any', events: [ev('Mine')] }]);
    expect(r.revisions).toEqual([{ stream: 'unit-1', revision: 2 }]);
    const stored = s.log.streams.get('unit-1')!;
    expect(stored.map((e) => e.type)).toEqual(['Tick', 'OtherToolNote', 'Mine']);
    // Chained after it as after any event without a hash: from an empty hash.
    const [mine] = await fresh.readStream('unit-1', { fromRevision: 2 });
    expect(mine!.hash).toBe(chainHash('', mine!));
  });

  it('is an existing stream: a write that expects one is not refused', async () => {
    const s = fakeStore();
    appendRaw(s.log, 'unit-2', 'no_stream', [binaryEvent()]);
    const r = await s.store.append([{ stream: 'unit-2', expectedRevision: 'stream_exists', events: [ev()] }]);
    expect(r.revisions).toEqual([{ stream: 'unit-2', revision: 1 }]);
    expect(s.client().appendCalls).toHaveLength(1);
  });
});

describe('KurrentDB adapter: an append whose outcome is unknown', () => {
  it('is what the client reports for a commit timeout and for its own deadline (DEADLINE_EXCEEDED), and for INTERNAL', () => {
    expect(commitTimeoutError()).toBeInstanceOf(DeadlineExceededError);
    expect(clientDeadlineError()).toBeInstanceOf(DeadlineExceededError);
    expect(internalError()).toBeInstanceOf(UnavailableError);
    for (const e of [commitTimeoutError(), clientDeadlineError(), internalError()]) expect(classifyError(e).status).toBe(503);
  });

  it.each([
    ['a commit timeout', commitTimeoutError],
    ['the client deadline', clientDeadlineError],
    ['INTERNAL', internalError],
  ])('after %s, with the append stored, is sent again as it was and answered as the first attempt', async (_label, error) => {
    const s = fakeStore();
    await s.store.append([{ stream: 'pila-1', expectedRevision: 'no_stream', events: [ev()] }]);
    let failed = false;
    s.client().onAppend = (_requests, storeIt) => {
      const r = storeIt();
      if (failed) return r;
      failed = true;
      throw error();
    };
    const writes: StreamWrite[] = [
      { stream: 'worker-1', expectedRevision: 'no_stream', events: [ev(), ev()] },
      { stream: 'pila-1', expectedRevision: 'any', events: [ev()] },
    ];
    const r = await s.store.append(writes);
    expect(r.revisions).toEqual([
      { stream: 'worker-1', revision: 1 },
      { stream: 'pila-1', revision: 1 },
    ]);
    expect(r.position).toEqual(s.log.all.at(-1)!.position);
    expect(s.log.all).toHaveLength(4);
    const [sent, resent] = s.client().appendCalls.slice(-2);
    expect(resent).toEqual(sent);
  });

  it('after a deadline with nothing stored, stores the append once on the resend', async () => {
    const s = fakeStore();
    let failed = false;
    s.client().onAppend = (_requests, storeIt) => {
      if (failed) return storeIt();
      failed = true;
      throw clientDeadlineError();
    };
    const r = await s.store.append([{ stream: 'w', expectedRevision: 'any', events: [ev()] }]);
    expect(r.revisions).toEqual([{ stream: 'w', revision: 0 }]);
    expect(s.log.all).toHaveLength(1);
  });

  it(`gives the client's error up after ${UNKNOWN_RESENDS} resends, storing nothing`, async () => {
    const s = fakeStore();
    s.client().onAppend = () => {
      throw commitTimeoutError();
    };
    await expect(s.store.append([{ stream: 'w', expectedRevision: 'no_stream', events: [ev()] }])).rejects.toBeInstanceOf(
      DeadlineExceededError,
    );
    expect(s.client().appendCalls).toHaveLength(1 + UNKNOWN_RESENDS);
    expect(s.log.all).toHaveLength(0);
  });

  it('reads again the heads it took from memory when the server cannot tell (a repeat it recognises on some streams only)', async () => {
    const s = fakeStore();
    const writes: StreamWrite[] = [
      { stream: 'worker-2', expectedRevision: 'no_stream', events: [ev()] },
      { stream: 'month-2', expectedRevision: 'any', events: [ev()] },
    ];
    const first = await s.store.append(writes);
    // This process writes the month again, so the head it remembers is past the repeat's events.
    await s.store.append([{ stream: 'month-2', expectedRevision: 'any', events: [ev()] }]);
    const reads = s.client().streamReads.length;
    const again = await s.store.append(writes);
    expect(again).toEqual(first);
    expect(s.log.all).toHaveLength(3);
    expect(
      s
        .client()
        .streamReads.slice(reads)
        .map((r) => r.stream),
    ).toEqual(['$$worker-2', 'month-2']);
    expect(
      s
        .client()
        .appendCalls.slice(-3)
        .map((c) => c[1]!.expectedState),
    ).toEqual([1n, 1n, 'no_stream']);
  });
});

describe('KurrentDB adapter: repeats of a write that expects any revision', () => {
  it(`finds a repeat from another process among the stream's last ${HEAD_WINDOW} events, though others wrote after it`, async () => {
    const s = fakeStore();
    const events = [ev(), ev()];
    const first = await s.store.append([{ stream: 'audit-worker-5', expectedRevision: 'any', events }]);
    await s.store.append([{ stream: 'audit-worker-5', expectedRevision: 'any', events: [ev('Later')] }]);
    // The node's memory of recent ids is gone (a restart, another leader): only the adapter can tell.
    s.log.recentIds.clear();
    const again = await otherProcess(s).append([{ stream: 'audit-worker-5', expectedRevision: 'any', events }]);
    expect(again).toEqual(first);
    expect(s.log.streams.get('audit-worker-5')).toHaveLength(3);
  });

  it('refuses before sending a write some of whose ids are stored there and some not', async () => {
    const s = fakeStore();
    const stored = ev();
    await s.store.append([{ stream: 'a', expectedRevision: 'any', events: [stored] }]);
    const fresh = otherProcess(s);
    await expect(fresh.append([{ stream: 'a', expectedRevision: 'any', events: [stored, ev()] }])).rejects.toBeInstanceOf(
      DuplicateEventIdError,
    );
  });

  it('answers a repeat in the stand-in with the position of its first attempt, as the server does', () => {
    const s = fakeStore();
    const events = [binaryEvent(), binaryEvent()];
    const first = appendRaw(s.log, 'x', 'no_stream', events);
    appendRaw(s.log, 'x', 'any', [binaryEvent()]);
    const again = appendRaw(s.log, 'x', 'no_stream', events);
    expect(again).toEqual(first);
    expect(first.position).toBeGreaterThan(0n);
  });
});

describe('KurrentDB adapter: a soft-deleted stream', () => {
  it.each(['any', 'no_stream'] as const)(
    'written expecting %s, takes its events after its last one (where the server puts them), chained from an empty hash',
    async (expectedRevision) => {
      const s = fakeStore();
      await s.store.append([{ stream: 'worker-3', expectedRevision: 'no_stream', events: [ev(), ev(), ev()] }]);
      s.log.softDelete('worker-3');
      const client = new FakeKurrentClient(s.log);
      const fresh = new KurrentEventStore(() => client);
      expect(await fresh.readStream('worker-3')).toEqual([]);

      const r = await fresh.append([{ stream: 'worker-3', expectedRevision, events: [ev('Again'), ev('Again')] }]);
      expect(r.revisions).toEqual([{ stream: 'worker-3', revision: 4 }]);
      const stored = await fresh.readStream('worker-3');
      expect(stored.map((e) => [e.revision, e.type])).toEqual([
        [3, 'Again'],
        [4, 'Again'],
      ]);
      await expectChained(fresh, ['worker-3']);
      // First sent expecting a revision no stream reaches, so that the conflict names the last one.
      expect(client.appendCalls.map((c) => c[0]!.expectedState)).toEqual([UNREACHABLE_REVISION, 2n]);
      expect(s.log.streams.get('worker-3')).toHaveLength(5);
    },
  );
});
