import type { Config } from '../config/config.ts';
import type { Db } from '../db/types.ts';
import { PostgresEventStore } from './postgres-store.ts';
import type { EventStore } from './types.ts';

/** The configured event store: PostgreSQL (the same database as the read models) or KurrentDB. */
export async function openEventStore(
  config: Pick<Config, 'eventStore' | 'kurrentdbUrl'>,
  db: Db,
  /** With batching off (the service's debugging switch), every append is sent on its own. */
  opts: { batching?: boolean } = {},
): Promise<EventStore> {
  if (config.eventStore === 'kurrentdb') {
    const { KurrentEventStore } = await import('./kurrentdb-store.ts');
    return KurrentEventStore.connect(config.kurrentdbUrl!);
  }
  return new PostgresEventStore(db, opts.batching === false ? { maxGroup: 1 } : {});
}
