import { NO_STREAM, STREAM_EXISTS, WrongExpectedVersionError, type RecordedEvent } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { hostOf, towardsLeader } from '../../../src/store/kurrentdb-connection.ts';
import { isNotLeader, notLeader, toConflict, unsupportedMessage } from '../../../src/store/kurrentdb-errors.ts';
import {
  HASH_KEY,
  METADATA_KEY,
  PROBE_STREAM,
  VERSION_KEY,
  decodeMetadata,
  encodeMetadata,
  expectationHolds,
  isAfter,
  maxPosition,
  replyPosition,
  sameStreamTwice,
  streamKey,
  toActualRevision,
  toEventData,
  storedFromRecorded,
  toStreamState,
} from '../../../src/store/kurrentdb-mapping.ts';
import { chainHash } from '../../../src/store/chain.ts';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import { START, WrongExpectedRevisionError, type StreamWrite } from '../../../src/store/types.ts';
import { eventStoreContract, type ContractTarget } from '../../support/event-store-contract.ts';
import {
  FakeKurrentClient,
  FakeKurrentLog,
  NOT_LEADER_MESSAGE,
  internalError,
  notLeaderAppendError,
  notLeaderDetails,
  notLeaderReadError,
  serviceError,
  statusDetails,
} from '../../support/fake-kurrent.ts';

const NO_SERVER = 'no KurrentDB server: set KURRENTDB_URL or run Docker';
const IMAGE = 'docker.kurrent.io/kurrent-latest/kurrentdb:25.1';

async function containerRuntimeReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([getContainerRuntimeClient(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000))]);
    return true;
  } catch {
    return false;
  }
}

// A node answers /health/live before it has elected itself leader: appends fail until it has.
async function connectWhenReady(url: string): Promise<KurrentEventStore> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await KurrentEventStore.connect(url);
    } catch (err) {
      if (Date.now() > deadline || /multi-stream append/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function makeTarget(): Promise<ContractTarget> {
  const holdOpenSkipReason = 'KurrentDB commits each append as one write: there is no transaction to hold open';
  const url = process.env.KURRENTDB_URL;
  if (url) {
    const store = await connectWhenReady(url);
    return { store, holdOpenSkipReason, dispose: () => store.close() };
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(IMAGE)
    .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_RUN_PROJECTIONS: 'None' })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((c) => c >= 200 && c < 300))
    .withStartupTimeout(120_000)
    .start();
  const store = await connectWhenReady(`kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`);
  return {
    store,
    holdOpenSkipReason,
    async dispose() {
      await store.close();
      await container.stop();
    },
  };
}

const haveServer = process.env.KURRENTDB_URL !== undefined || (await containerRuntimeReachable());

eventStoreContract('KurrentDB', makeTarget, haveServer ? undefined : NO_SERVER);

// The adapter's side of the contract, everywhere: the same suite on the in-memory stand-in for
// the client (a model of a 25.1 node, not a node), so that what the adapter does with pages,
// conflicts, repeats and positions is checked on every run.
eventStoreContract('KurrentDB adapter on the in-memory stand-in for the client', async () => {
  const log = new FakeKurrentLog();
  const store = new KurrentEventStore(() => new FakeKurrentClient(log));
  return {
    store,
    holdOpenSkipReason: 'KurrentDB commits each append as one write: there is no transaction to hold open',
    dispose: () => store.close(),
  };
});

describe('KurrentDB mapping (no server needed)', () => {
  it('maps each kind of expected revision to the client stream state', () => {
    expect(toStreamState('any')).toBe('any');
    expect(toStreamState('no_stream')).toBe(NO_STREAM);
    expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
    expect(toStreamState(0)).toBe(0n);
    expect(toStreamState(41)).toBe(41n);
    expect(() => toStreamState(-1)).toThrow();
    expect(() => toStreamState(1.5)).toThrow();
  });

  it('reads the actual state of a conflict as a revision or no_stream', () => {
    expect(toActualRevision(NO_STREAM)).toBe('no_stream');
    expect(toActualRevision(7n)).toBe(7);
    expect(toActualRevision(-5n)).toBe('no_stream');
  });

  it('checks expectations the way the server does', () => {
    expect(expectationHolds('any', 'no_stream')).toBe(true);
    expect(expectationHolds('no_stream', 'no_stream')).toBe(true);
    expect(expectationHolds('no_stream', 0)).toBe(false);
    expect(expectationHolds('stream_exists', 'no_stream')).toBe(false);
    expect(expectationHolds('stream_exists', 3)).toBe(true);
    expect(expectationHolds(3, 3)).toBe(true);
    expect(expectationHolds(3, 4)).toBe(false);
  });

  it('turns the client conflict into the port conflict, naming the failing stream', () => {
    const writes: StreamWrite[] = [
      { stream: 'a', expectedRevision: 'no_stream', events: [] },
      { stream: 'b', expectedRevision: 5, events: [] },
    ];
    const err = new WrongExpectedVersionError(undefined, { streamName: 'b', expected: 5n, current: 0n });
    const c = toConflict(err, writes);
    expect(c).toBeInstanceOf(WrongExpectedRevisionError);
    expect(c).toMatchObject({ stream: 'b', expected: 5, actual: 0 });
    const missing = new WrongExpectedVersionError(undefined, { streamName: 'a', expected: NO_STREAM, current: NO_STREAM });
    expect(toConflict(missing, writes)).toMatchObject({ stream: 'a', actual: 'no_stream' });
    expect(toConflict(new Error('boom'), writes)).toBeUndefined();
  });

  it('carries metadata of any JSON shape and the schema version through string-only properties', () => {
    const encoded = encodeMetadata({ id: 'x', type: 'T', version: 3, data: {}, metadata: { userId: 7, apiKeyId: null } });
    expect(Object.values(encoded).every((v) => typeof v === 'string')).toBe(true);
    // The server hands properties back as metadata with entries of its own.
    const read = { ...encoded, '$schema.name': 'T', '$schema.format': 'Json', '$record.timestamp': 'now' };
    expect(decodeMetadata(read)).toEqual({ version: 3, metadata: { userId: 7, apiKeyId: null } });
    expect(decodeMetadata({ [VERSION_KEY]: '1', [METADATA_KEY]: '{}' })).toEqual({ version: 1, metadata: {} });
  });

  it('reads metadata written by other tools as plain entries, version 1', () => {
    expect(decodeMetadata({ requestId: 'r', $correlationId: 'c' })).toEqual({ version: 1, metadata: { requestId: 'r' } });
    expect(decodeMetadata(undefined)).toEqual({ version: 1, metadata: {} });
    expect(decodeMetadata(new Uint8Array([1, 2]))).toEqual({ version: 1, metadata: {} });
  });

  it('skips the event at the boundary, since fromPosition is inclusive', () => {
    const at = { commit: 100n, prepare: 100n };
    expect(isAfter(at, at)).toBe(false);
    expect(isAfter({ commit: 100n, prepare: 120n }, at)).toBe(true);
    expect(isAfter({ commit: 150n, prepare: 90n }, at)).toBe(true);
    expect(isAfter({ commit: 99n, prepare: 200n }, at)).toBe(false);
    expect(isAfter(at, START)).toBe(true);
    expect(maxPosition([at, { commit: 100n, prepare: 120n }, { commit: 90n, prepare: 500n }])).toEqual({
      commit: 100n,
      prepare: 120n,
    });
    expect(maxPosition([])).toBeUndefined();
  });

  const recorded = (over: Partial<Record<string, unknown>> = {}) =>
    ({
      streamId: 'worker-1',
      id: '5d3c2f1e-0000-4000-8000-000000000001',
      revision: 4n,
      type: 'VacationCreated',
      isJson: true,
      data: { days: 15 },
      metadata: { ...encodeMetadata({ id: '', type: '', version: 2, data: {}, metadata: { userId: 1 } }), '$schema.name': 'x' },
      created: new Date('2025-03-01T10:00:00.123Z'),
      position: { commit: 500n, prepare: 480n },
      ...over,
    }) as unknown as RecordedEvent;

  it('maps a recorded event to a stored event', () => {
    expect(storedFromRecorded(recorded())).toEqual({
      id: '5d3c2f1e-0000-4000-8000-000000000001',
      stream: 'worker-1',
      revision: 4,
      type: 'VacationCreated',
      version: 2,
      data: { days: 15 },
      metadata: { userId: 1 },
      position: { commit: 500n, prepare: 480n },
      recordedAt: '2025-03-01T10:00:00.123Z',
    });
    const bytes = recorded({ isJson: false, data: new TextEncoder().encode('{"days":3}') });
    expect(storedFromRecorded(bytes)?.data).toEqual({ days: 3 });
  });

  it('leaves out system, probe and non-JSON events', () => {
    expect(storedFromRecorded(undefined)).toBeUndefined();
    expect(storedFromRecorded(recorded({ streamId: '$settings' }))).toBeUndefined();
    expect(storedFromRecorded(recorded({ type: '$metadata' }))).toBeUndefined();
    expect(storedFromRecorded(recorded({ streamId: PROBE_STREAM }))).toBeUndefined();
    expect(storedFromRecorded(recorded({ isJson: false, data: new Uint8Array([0xff, 0x00]) }))).toBeUndefined();
    expect(storedFromRecorded(recorded({ data: [1, 2] }))).toBeUndefined();
  });

  it("recognises a follower's refusal, however the client passes it on, and nothing else", () => {
    expect(isNotLeader(notLeaderAppendError())).toBe(true);
    expect(isNotLeader(serviceError(9, NOT_LEADER_MESSAGE, notLeaderDetails()))).toBe(true);
    expect(isNotLeader(notLeaderReadError())).toBe(true);
    expect(
      isNotLeader(serviceError(9, 'precondition', statusDetails(9, 'x', 'kurrent.rpc.AccessDeniedErrorDetails', Buffer.alloc(0)))),
    ).toBe(false);
    expect(isNotLeader(serviceError(9, NOT_LEADER_MESSAGE))).toBe(false);
    expect(isNotLeader(internalError())).toBe(false);
    expect(isNotLeader(new Error('boom'))).toBe(false);
  });

  it('reads the leader a refusal names, and aims a connection string at it alone', () => {
    expect(notLeader(notLeaderAppendError())).toEqual({ leader: { host: 'node-2', port: 2113 } });
    expect(notLeader(serviceError(9, NOT_LEADER_MESSAGE, notLeaderDetails('10.5.0.12', 2114)))).toEqual({
      leader: { host: '10.5.0.12', port: 2114 },
    });
    expect(notLeader(notLeaderReadError())).toEqual({ leader: { host: 'node-2', port: 2113 } });
    const leader = { host: '10.5.0.12', port: 2113 };
    expect(
      towardsLeader('kurrentdb://admin:changeit@10.5.0.11:2113,10.5.0.12:2113,10.5.0.13:2113?tls=false&defaultDeadline=5000', leader),
    ).toBe('kurrentdb://admin:changeit@10.5.0.12:2113?tls=false&defaultDeadline=5000');
    expect(towardsLeader('kurrentdb+discover://cluster.example:2113', leader)).toBe('kurrentdb://10.5.0.12:2113');
  });

  it('compares the streams of one append as the server does, ignoring case one character at a time', () => {
    expect(sameStreamTwice(['worker-1', 'pila-1', 'Worker-1'])).toEqual(['worker-1', 'Worker-1']);
    expect(sameStreamTwice(['a', 'b'])).toBeUndefined();
    expect(streamKey('unit-5-2026-01')).toBe('UNIT-5-2026-01');
    // ß has no one-character upper case: it stays itself, so 'straße' and 'STRASSE' stay apart.
    expect(sameStreamTwice(['straße', 'STRASSE'])).toBeUndefined();
  });

  it("takes a non-negative reply position as the last event's, and a negative one as none", () => {
    expect(replyPosition(4096n)).toEqual({ commit: 4096n, prepare: 4096n });
    expect(replyPosition(0n)).toEqual({ commit: 0n, prepare: 0n });
    expect(replyPosition(-1n)).toBeUndefined();
  });

  it("sends the JSON round trip of an event's data, with string-only metadata", () => {
    const when = new Date('2026-01-05T00:00:00Z');
    const event = {
      id: '5d3c2f1e-0000-4000-8000-000000000009',
      type: 'T',
      version: 2,
      data: { when, skip: undefined, n: 1 },
      metadata: { userId: 3 },
    };
    const { eventData: e, hash } = toEventData('s', event);
    expect(e).toMatchObject({ id: '5d3c2f1e-0000-4000-8000-000000000009', type: 'T', contentType: 'application/json' });
    expect(e.data).toEqual({ when: '2026-01-05T00:00:00.000Z', n: 1 });
    expect(e.metadata).toEqual({ [VERSION_KEY]: '2', [METADATA_KEY]: '{"userId":3}' });
    expect(hash).toBeUndefined();

    // Chained, the event carries the hash of what is read back: the data's JSON round trip.
    const previous = 'ab'.repeat(32);
    const chained = toEventData('s', event, { revision: 4, previous });
    const expected = chainHash(previous, {
      stream: 's',
      revision: 4,
      type: 'T',
      version: 2,
      data: { when: '2026-01-05T00:00:00.000Z', n: 1 },
      metadata: { userId: 3 },
    });
    expect(chained.hash).toBe(expected);
    expect(chained.eventData.metadata).toEqual({ [VERSION_KEY]: '2', [METADATA_KEY]: '{"userId":3}', [HASH_KEY]: expected });
    expect(decodeMetadata(chained.eventData.metadata)).toEqual({ version: 2, metadata: { userId: 3 }, hash: expected });
  });

  it('names the host, never the credentials, when the server is too old', () => {
    expect(hostOf('kurrentdb://admin:changeit@db.internal:2113?tls=false')).toBe('db.internal:2113');
    expect(hostOf('kurrentdb+discover://a:2113,b:2113')).toBe('a:2113,b:2113');
    expect(unsupportedMessage('db:2113')).toBe(
      'KurrentDB at db:2113 does not support multi-stream append: version 25.1 or newer is required',
    );
  });
});
