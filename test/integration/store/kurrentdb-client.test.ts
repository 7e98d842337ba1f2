import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectClient } from '../../../src/store/kurrentdb-client.ts';
import { hostOf } from '../../../src/store/kurrentdb-connection.ts';
import { unsupportedMessage } from '../../../src/store/kurrentdb-errors.ts';
import { KurrentEventStore, LEADER_ATTEMPTS, NoLeaderError } from '../../../src/store/kurrentdb-store.ts';
import type { NewEvent } from '../../../src/store/types.ts';
import { FakeKurrentNode } from '../../support/fake-kurrent-node.ts';

/**
 * The installed client itself (@kurrent/kurrentdb-client 1.3.1) against a stand-in node that
 * answers its gRPC calls for appends: what the client does with its connections and with the
 * server's answers is the client's own. Reads (over the client's separate bridge) are answered
 * as of an empty log, so every append here is answered with a position and reads nothing back,
 * and expects no stream: a write expecting any revision first reads its stream's head to chain
 * its events to it.
 */
describe('KurrentDB adapter on the real client, against a stand-in node', () => {
  let node: FakeKurrentNode;
  let store: KurrentEventStore | undefined;

  beforeEach(async () => {
    node = await FakeKurrentNode.start();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await node.stop();
  });

  const ev = (data: Record<string, unknown> = { n: 1 }): NewEvent => ({ id: randomUUID(), type: 'Tick', data });
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('connects to a server whose feature table lists multi-stream append, having read $all through the bridge', async () => {
    store = await KurrentEventStore.connect(node.url);
    // The append path's client first, then the read bridge, with a feature table of its own.
    expect(node.calls).toEqual(['GetSupportedMethods', 'AppendSession', 'GetSupportedMethods', 'Read']);
    expect(node.reads).toBe(1);
  });

  it.each(['older server', 'no table'] as const)(
    'refuses to connect when the client finds no multi-stream append in the feature table (%s), before sending one',
    async (features) => {
      node.features = features;
      await expect(KurrentEventStore.connect(node.url)).rejects.toThrow(unsupportedMessage(hostOf(node.url)));
      expect(node.calls).toEqual(['GetSupportedMethods']);
      await until(() => node.openSessions() === 0);
      expect(node.openSessions()).toBe(0);
    },
  );

  it("closes its connection on close(), which the client's dispose() leaves open", async () => {
    store = new KurrentEventStore(() => connectClient(node.url));
    const r = await store.append([{ stream: 'worker-1', expectedRevision: 'no_stream', events: [ev()] }]);
    expect(r.revisions).toEqual([{ stream: 'worker-1', revision: 0 }]);
    expect(r.position).toEqual({ commit: node.lastPosition, prepare: node.lastPosition });
    expect(node.openAppendSessions()).toBe(1);
    await store.close();
    store = undefined;
    await until(() => node.openAppendSessions() === 0);
    expect(node.openAppendSessions()).toBe(0);
  });

  it('sends a write refused by a follower once more on a new client, which reaches the leader', async () => {
    node.followerSessions = 1;
    store = new KurrentEventStore(() => connectClient(node.url));
    const r = await store.append([
      { stream: 'worker-2', expectedRevision: 'no_stream', events: [ev(), ev()] },
      { stream: 'pila-2', expectedRevision: 'no_stream', events: [ev()] },
    ]);
    expect(r.revisions).toEqual([
      { stream: 'worker-2', revision: 1 },
      { stream: 'pila-2', revision: 0 },
    ]);
    // The first connection asked, was refused, and was closed; the second one wrote.
    expect(node.appendSessions).toHaveLength(2);
    expect(node.calls.filter((c) => c === 'AppendSession')).toHaveLength(2);
    await until(() => node.openAppendSessions() === 1);
    expect(node.openAppendSessions()).toBe(1);
  });

  it('aims the retry at the leader the refusal names, through the connection string the store was given', async () => {
    const leader = await FakeKurrentNode.start();
    try {
      node.followerSessions = 100;
      node.leader = { host: '127.0.0.1', port: leader.port };
      store = await KurrentEventStore.connect(`kurrentdb://admin:changeit@127.0.0.1:${node.port}?tls=false&defaultDeadline=3000`);
      const r = await store.append([{ stream: 'worker-3', expectedRevision: 'no_stream', events: [ev()] }]);
      expect(r.revisions).toEqual([{ stream: 'worker-3', revision: 0 }]);
      // The follower refused the probe of connect; the leader took it, and the append.
      expect(node.calls.filter((c) => c === 'AppendSession')).toHaveLength(1);
      expect(leader.calls.filter((c) => c === 'AppendSession')).toHaveLength(2);
    } finally {
      await store?.close();
      store = undefined;
      await leader.stop();
    }
  });

  it(`gives up after ${LEADER_ATTEMPTS} refusals with NoLeaderError`, async () => {
    node.followerSessions = 100;
    node.leader = { host: '127.0.0.1', port: node.port };
    store = new KurrentEventStore(() => connectClient(node.url), hostOf(node.url));
    await expect(store.append([{ stream: 'worker-3', expectedRevision: 'no_stream', events: [ev()] }])).rejects.toBeInstanceOf(
      NoLeaderError,
    );
    expect(node.calls.filter((c) => c === 'AppendSession')).toHaveLength(LEADER_ATTEMPTS);
  });

  it('refuses an event it cannot serialise before sending, instead of leaving the client to crash the process', async () => {
    store = new KurrentEventStore(() => connectClient(node.url));
    await expect(store.append([{ stream: 'worker-4', expectedRevision: 'no_stream', events: [ev({ big: 1n })] }])).rejects.toThrow(
      /cannot be serialised as JSON/,
    );
    expect(node.calls).not.toContain('AppendSession');
    // The store still works.
    await store.append([{ stream: 'worker-4', expectedRevision: 'no_stream', events: [ev()] }]);
    expect(node.calls).toContain('AppendSession');
  });
});
