import { pilaStream, unitStream, workerStream } from '../events/streams.ts';
import type { DomainEvent } from '../events/types.ts';
import type { EventWrite } from '../store/aggregate-port.ts';
import type { ExpectedRevision } from '../store/types.ts';
import { monthsOf, type UnitOccupancy } from './occupancy.ts';
import type { WorkerState } from '../events/worker-state.ts';

/** Events to append to one stream, with the revision the stream must still be at. */
export type PlannedWrite = EventWrite;

const expectedOf = (revision: number): ExpectedRevision => (revision < 0 ? 'no_stream' : revision);

/**
 * Where a decision's events are written, and at which revisions, from the state and occupancy it
 * was decided on; one write per stream, in the order the events first name them.
 *
 * - A worker's vacation events go to the worker's stream, at the revision the state was folded to:
 *   a decision on a stale state ends in a conflict, never a write.
 * - A code's assignment goes to the code's own stream, which must not exist yet: a code is never
 *   issued twice.
 * - Places booked or released go to each month stream of the subgerencia the period touches (a
 *   release, to those of the record as it stood). Where the decision read the subgerencia's
 *   occupancy (under a limit of people at once), bookings are written at the revisions read, so
 *   that two bookings decided on the same picture cannot both land; the rest with no expectation:
 *   releasing only frees places, and without a limit nothing was read.
 */
export function streamsOf(events: readonly DomainEvent[], state: WorkerState, occupancy?: UnitOccupancy): PlannedWrite[] {
  const writes = new Map<string, PlannedWrite>();
  const add = (stream: string, expectedRevision: ExpectedRevision, event: DomainEvent) => {
    const write = writes.get(stream);
    if (write) write.events.push(event);
    else writes.set(stream, { stream, expectedRevision, events: [event] });
  };
  // A booking under a limit guards every month it touches (one not read holds nothing yet); a
  // release only shares the guard of a month a booking of the same decision reads.
  const toMonths = (subgerenciaId: string, startDate: string, endDate: string, event: DomainEvent, booking: boolean) => {
    const read = occupancy?.subgerenciaId === subgerenciaId ? occupancy.revisions : undefined;
    for (const month of monthsOf(startDate, endDate)) {
      const revision = read?.get(month) ?? (read && booking ? -1 : undefined);
      add(unitStream(subgerenciaId, month), revision === undefined ? 'any' : expectedOf(revision), event);
    }
  };
  for (const event of events) {
    switch (event.type) {
      case 'VacationCreated':
      case 'VacationEditStarted':
      case 'VacationDeleted':
      case 'VacationApproved':
      case 'VacationInterrupted':
        add(workerStream(event.data.workerId), expectedOf(state.revision), event);
        break;
      case 'PilaCodeAssigned':
        add(pilaStream(event.data.codigoPila), 'no_stream', event);
        break;
      case 'SlotsBooked':
        toMonths(event.data.subgerenciaId, event.data.startDate, event.data.endDate, event, true);
        break;
      case 'SlotsReleased': {
        // The places of the record as it stood before the decision.
        const record = state.vacations.get(event.data.codigoPila);
        if (!record?.subgerenciaId) throw new Error(`no places to release for ${event.data.codigoPila}`);
        toMonths(record.subgerenciaId, record.startDate, record.endDate, event, false);
        break;
      }
      default:
        throw new Error(`no command writes ${event.type}`);
    }
  }
  return [...writes.values()];
}
