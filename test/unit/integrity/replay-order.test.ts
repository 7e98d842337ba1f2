import { describe, expect, it } from 'vitest';
import { streamAsOf } from '../../../src/integrity/as-of.ts';
import { replayOrder } from '../../../src/integrity/replay-order.ts';
import type { StoredEvent } from '../../../src/store/types.ts';

const ev = (stream: string, revision: number, commit: number, prepare: number, recordedAt = '2024-03-01T12:00:00.000Z'): StoredEvent => ({
  id: `${stream}-${revision}`,
  stream,
  revision,
  type: 'Tick',
  version: 1,
  data: {},
  metadata: {},
  position: { commit: BigInt(commit), prepare: BigInt(prepare) },
  recordedAt,
});
const names = (events: StoredEvent[]) => events.map((e) => `${e.stream}@${e.revision}`);

describe('a stream as of a time', () => {
  const times = ['2024-03-01T12:00:00.000Z', '2024-06-01T12:00:00.000Z', '2024-04-15T12:00:00.000Z', '2024-07-01T12:00:00.000Z'];
  const stream = times.map((t, i) => ev('worker-1', i, i, i, t));

  it('given recording times that run against revisions, when cut as of a time, then it ends at its last event recorded by then, with every revision before', () => {
    expect(streamAsOf(stream, Date.parse('2024-05-01T00:00:00Z')).map((e) => e.revision)).toEqual([0, 1, 2]);
    expect(streamAsOf(stream, Date.parse('2024-03-01T12:00:00Z')).map((e) => e.revision)).toEqual([0]);
    expect(streamAsOf(stream, Date.parse('2024-07-01T12:00:00Z')).map((e) => e.revision)).toEqual([0, 1, 2, 3]);
  });

  it('given a time before its first event, then nothing of it', () => {
    expect(streamAsOf(stream, Date.parse('2024-02-01T00:00:00Z'))).toEqual([]);
  });

  it('given recording times with microseconds, then they count to the millisecond', () => {
    const fine = [ev('s', 0, 1, 1, '2024-03-01T12:00:00.000900Z')];
    expect(streamAsOf(fine, Date.parse('2024-03-01T12:00:00.000Z'))).toHaveLength(1);
  });
});

describe('the order of a replay', () => {
  it('given events of two streams in any order, then each stream in revision order, woven by their positions', () => {
    const worker = [ev('worker-1', 0, 10, 1), ev('worker-1', 1, 12, 3)];
    const audit = [ev('audit-worker-1', 0, 11, 2), ev('audit-worker-1', 1, 13, 4)];
    expect(names(replayOrder([worker[1]!, audit[1]!, audit[0]!, worker[0]!]))).toEqual([
      'worker-1@0',
      'audit-worker-1@0',
      'worker-1@1',
      'audit-worker-1@1',
    ]);
  });

  it('given a stream whose positions run against its revisions, then its revisions still come in order', () => {
    // Revision 1's transaction drew its id before revision 0's.
    const worker = [ev('worker-1', 0, 20, 5), ev('worker-1', 1, 19, 6), ev('worker-1', 2, 21, 7)];
    const audit = [ev('audit-worker-1', 0, 18, 1)];
    expect(names(replayOrder([...worker, ...audit]))).toEqual(['audit-worker-1@0', 'worker-1@0', 'worker-1@1', 'worker-1@2']);
  });

  it('given a time, then each stream is cut as of it before they are woven', () => {
    const worker = [ev('worker-1', 0, 1, 1, '2024-03-01T00:00:00Z'), ev('worker-1', 1, 3, 3, '2024-05-01T00:00:00Z')];
    const audit = [ev('audit-worker-1', 0, 2, 2, '2024-06-01T00:00:00Z')];
    expect(names(replayOrder([...worker, ...audit], Date.parse('2024-05-15T00:00:00Z')))).toEqual(['worker-1@0', 'worker-1@1']);
  });
});
