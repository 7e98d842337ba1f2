import { describe, expect, it } from 'vitest';
import { KnownWorkerReads } from '../../../src/caching/known-worker.ts';
import { VacationCommands } from '../../../src/commands/vacation-commands.ts';
import type { WorkerFile } from '../../../src/commands/types.ts';
import { emptyWorkerState, type WorkerState } from '../../../src/events/worker-state.ts';
import type { EventStore } from '../../../src/store/types.ts';
import { calendar, params, request, workerFile } from './builders.ts';

// Without a limit of people at once (rule d), calculate given the read model's states touches no stream.
const noStore = new Proxy({} as EventStore, {
  get: (_t, prop) => () => {
    throw new Error(`calculate read the event store (${String(prop)})`);
  },
});

describe('what calculate reads, given the read model of folded states', () => {
  it('asks for the state of the worker the document names now, even where it named another before', async () => {
    const asked: number[] = [];
    const first = workerFile({ params: params({ maxPeopleOnVacation: null }) });
    const second: WorkerFile = { ...first, worker: { ...first.worker, id: 2002 } };
    let named = first;
    const known = new KnownWorkerReads(
      async () => named,
      async (workerId): Promise<WorkerState> => {
        asked.push(workerId);
        return emptyWorkerState();
      },
    );
    const commands = new VacationCommands({
      store: noStore,
      reference: { workerFileByDocument: async () => named as never },
      fileAndState: (doc) => known.read(doc),
      calendar,
      today: () => '2026-01-01',
      nextRecordId: async () => 1,
    });
    expect((await commands.calculate('1020307007', request())).ok).toBe(true);
    expect(asked).toEqual([1001]);
    // Known now: the state is asked for beside the file, and it is the one used.
    expect((await commands.calculate('1020307007', request())).ok).toBe(true);
    expect(asked).toEqual([1001, 1001]);
    // The document now names another worker: the state asked for early is not the one used.
    named = second;
    expect((await commands.calculate('1020307007', request())).ok).toBe(true);
    expect(asked).toEqual([1001, 1001, 1001, 2002]);
  });
});
