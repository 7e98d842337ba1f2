import type { DomainEvent, SlotsBooked, VacationRecord } from './types.ts';

/** The places an enjoyed vacation takes in its subgerencia over its period; none for one paid in money. */
export function booked(record: VacationRecord): { type: 'SlotsBooked'; data: SlotsBooked }[] {
  if (record.compensated || !record.subgerenciaId) return [];
  const { codigoPila, workerId, subgerenciaId, startDate, endDate } = record;
  return [{ type: 'SlotsBooked', data: { codigoPila, workerId, subgerenciaId, startDate, endDate } }];
}

/**
 * Whether an event moves places in a subgerencia's month streams, or comes in the same append as
 * events that do: a booking or a release, and every vacation event written beside one (booked,
 * released), which a reader of the log may meet on a page without them.
 */
export function movesPlaces(event: DomainEvent): boolean {
  switch (event.type) {
    case 'SlotsBooked':
    case 'SlotsReleased':
    case 'VacationDeleted':
    case 'VacationInterrupted':
      return true;
    case 'VacationCreated':
    case 'VacationImported':
      return booked(event.data).length > 0;
    default:
      return false;
  }
}

/** The places a record took, given back. */
export function released(record: VacationRecord): DomainEvent[] {
  if (record.compensated || !record.subgerenciaId) return [];
  return [{ type: 'SlotsReleased', data: { codigoPila: record.codigoPila, workerId: record.workerId } }];
}
