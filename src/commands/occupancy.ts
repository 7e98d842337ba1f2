import { eachDay, monthOf } from '../domain/index.ts';
import type { DomainEvent } from '../events/types.ts';

export interface Booking {
  codigoPila: string;
  workerId: number;
  startDate: string;
  endDate: string;
}

/** Live bookings of one subgerencia as folded from its month streams. */
export interface UnitOccupancy {
  subgerenciaId: string;
  bookings: Map<string, Booking>;
  /** Revision of each month stream read (-1: no stream yet), to append with. */
  revisions: Map<string, number>;
}

export function foldUnit(subgerenciaId: string, streams: { month: string; revision: number; events: DomainEvent[] }[]): UnitOccupancy {
  const bookings = new Map<string, Booking>();
  const revisions = new Map<string, number>();
  for (const s of streams) {
    revisions.set(s.month, s.revision);
    for (const e of s.events) {
      if (e.type === 'SlotsBooked') {
        const { codigoPila, workerId, startDate, endDate } = e.data;
        bookings.set(codigoPila, { codigoPila, workerId, startDate, endDate });
      } else if (e.type === 'SlotsReleased') {
        bookings.delete(e.data.codigoPila);
      }
    }
  }
  return { subgerenciaId, bookings, revisions };
}

/**
 * A subgerencia's occupancy from its month streams as read (decoded, in revision order; a month
 * not read or empty counts as no stream yet): what an add and a plan booking judge rule (d) on.
 */
export function occupancyOf(
  subgerenciaId: string,
  months: readonly string[],
  eventsOf: (month: string) => readonly { revision: number; event: DomainEvent }[],
): UnitOccupancy {
  return foldUnit(
    subgerenciaId,
    months.map((month) => {
      const events = eventsOf(month);
      return { month, revision: events.length ? events[events.length - 1]!.revision : -1, events: events.map((e) => e.event) };
    }),
  );
}

/** Calendar months a period touches, as YYYY-MM. */
export function monthsOf(startDate: string, endDate: string): string[] {
  const months = new Set<string>();
  for (const d of eachDay(startDate, endDate)) months.add(monthOf(d));
  return [...months];
}

/**
 * First day of the period on which other workers already fill every place; undefined when the
 * period fits. Bookings of the same worker do not count: rule (e) covers those.
 */
export function firstFullDay(
  occupancy: UnitOccupancy,
  workerId: number,
  startDate: string,
  endDate: string,
  maxPeople: number,
  ignoreCode?: string,
): string | undefined {
  const others = [...occupancy.bookings.values()].filter(
    (b) => b.workerId !== workerId && b.codigoPila !== ignoreCode && b.startDate <= endDate && b.endDate >= startDate,
  );
  if (others.length < maxPeople) return undefined;
  for (const day of eachDay(startDate, endDate)) {
    const people = new Set(others.filter((b) => b.startDate <= day && day <= b.endDate).map((b) => b.workerId));
    if (people.size >= maxPeople) return day;
  }
  return undefined;
}
