import type { Migration } from '../../db/types.ts';
import { eventStore } from './migrations/01-event-store.ts';
import { vacationRecordIds } from './migrations/04-vacation-record-ids.ts';
import { oneRoundTripAppend } from './migrations/07-one-round-trip-append.ts';
import { setBasedAppend } from './migrations/08-set-based-append.ts';
import { appendsCommittedInGroups } from './migrations/09-appends-committed-in-groups.ts';
import { groupsWrittenSetBased } from './migrations/10-groups-of-appends-written-set-based.ts';
import { appendPlannedPerCall } from './migrations/11-append-planned-per-call.ts';
import { groupAnswersJoined } from './migrations/12-group-answers-joined.ts';
import { appendsExpectingNoRevision } from './migrations/13-appends-that-expect-no-revision.ts';
import { appendsLinearInSize } from './migrations/15-appends-linear-in-their-size.ts';
import { hashChain } from './migrations/17-hash-chain-of-every-stream.ts';
import { canonicalJsonPrinted } from './migrations/19-canonical-json-written-without-rebuilding-the-jsonb.ts';

/**
 * The event store's schema on PostgreSQL (and PGlite), version by version, one file each in
 * migrations/: the events and streams tables, the sequence of vacation record ids, the append
 * functions and the hash chain. src/db/migrations.ts runs these with the other owners'
 * migrations, in version order.
 *
 * Frozen: the text of an applied migration never changes (test/unit/db/migrations.test.ts pins
 * the hash of each). Every function the service calls has its live text in a file of its own
 * beside this one, which the migration that created it last renders: vac-append.ts,
 * vac-append-batch.ts and vac-append-any.ts (migration 17), vac-claim-append.ts (migration 7) and
 * vac-chain.ts (migrations 17 and 19). To change one: copy the text that migration renders today
 * into it as a literal (the test still passes), edit the function's file, and add a migration that
 * creates it again from the file (CREATE OR REPLACE resets a function's settings: set them
 * again), under the next free version number.
 */

export const eventStoreMigrations: Migration[] = [
  eventStore,
  vacationRecordIds,
  oneRoundTripAppend,
  setBasedAppend,
  appendsCommittedInGroups,
  groupsWrittenSetBased,
  appendPlannedPerCall,
  groupAnswersJoined,
  appendsExpectingNoRevision,
  appendsLinearInSize,
  hashChain,
  canonicalJsonPrinted,
];
