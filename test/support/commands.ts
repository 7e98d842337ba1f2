import { VacationCommands, type CommandDeps } from '../../src/commands/vacation-commands.ts';
import type { Actor, VacationRequest } from '../../src/commands/types.ts';
import type { Queryable } from '../../src/db/types.ts';
import { HolidayCalendar } from '../../src/domain/index.ts';
import { ReferenceRepository } from '../../src/reference/repository.ts';
import type { EventStore } from '../../src/store/types.ts';

/** The administrator of the fixture and the generated datasets, acting with no request around. */
export const ADMIN_ACTOR: Actor = {
  userId: 1,
  userEmail: 'admin@empresa.co',
  apiKeyId: null,
  apiKeyName: null,
  requestId: null,
  correlationId: null,
  idempotencyKey: null,
};

/** An enjoyed, unpaid vacation request without Saturdays. */
export const vacationRequest = (startDate: string, days: number, over: Partial<VacationRequest> = {}): VacationRequest => ({
  startDate,
  days,
  advance: false,
  worksSaturday: false,
  compensated: false,
  socialSecurityInPayroll: null,
  ...over,
});

/** A command handler over a test database and store, record ids from the database's sequence. */
export function commandsOver(db: Queryable, store: EventStore, over: Partial<CommandDeps> = {}): VacationCommands {
  return new VacationCommands({
    store,
    reference: new ReferenceRepository(db),
    calendar: new HolidayCalendar(),
    today: () => '2026-02-01',
    nextRecordId: async () => Number((await db.query<{ id: string }>(`SELECT nextval('vacation_record_ids')::text AS id`)).rows[0]!.id),
    ...over,
  });
}
