import type { EventStore } from '../../src/store/types.ts';

/**
 * The port without its PostgreSQL class: what reads the whole log (verification, anchors) reads
 * it through the port and does the work itself, as it does on KurrentDB.
 */
export function asPlainStore(store: EventStore): EventStore {
  return {
    name: 'plain',
    append: (w) => store.append(w),
    appendAny: (w) => store.appendAny(w),
    readStream: (s, o) => store.readStream(s, o),
    readStreams: (r) => store.readStreams(r),
    readAll: (o) => store.readAll(o),
    headPosition: () => store.headPosition(),
    countAfter: (p) => store.countAfter(p),
    logDatabase: () => undefined,
    claimAppend: async () => {},
    existingStreams: (tx, streams) => store.existingStreams(tx, streams),
    prepareImport: (writes) => store.prepareImport(writes),
    ping: () => store.ping(),
    close: async () => {},
  };
}
