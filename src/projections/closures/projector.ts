import type { DecodedEvent } from '../../events/codec.ts';
import type { CollectiveClosureScheduled } from '../../events/types.ts';
import { columnDefinitions, type Columns } from '../sql.ts';
import { defineProjector, type Projector, type Row } from '../types.ts';

export const CLOSURES_TABLE = 'rm_collective_closures';

export type ClosureState = 'programada' | 'aprobada' | 'cancelada';

/** A collective closure as the panel and the audit show it: the decision, and what became of it. */
export interface ClosureRow {
  closureId: string;
  subgerenciaIds: string[];
  companyContractId: number | null;
  startDate: string;
  businessDays: number;
  worksSaturday: boolean;
  workers: { workerId: number; documentNumber: string; codigoPila: string }[];
  excluded: CollectiveClosureScheduled['excluded'];
  state: ClosureState;
  scheduledBy: number;
  scheduledAt: string;
  approvedBy: number | null;
  approvedAt: string | null;
  approvedCodes: string[];
  cancelledBy: number | null;
  cancelledAt: string | null;
  cancelReason: string | null;
  cancelledCodes: string[];
}

export const CLOSURE_COLUMNS: Columns = {
  closure_id: 'text NOT NULL',
  start_date: 'date NOT NULL',
  state: 'text NOT NULL',
  scheduled_at: 'timestamptz NOT NULL',
  // The whole closure, read whole: its lists are never searched by SQL.
  closure: 'jsonb NOT NULL',
};

/** The closure after its events; the stream holds one decision, then its approval or its cancellation. */
export function evolveClosure(unit: ClosureRow | undefined, events: readonly DecodedEvent[]): ClosureRow | undefined {
  let out = unit;
  for (const { event } of events) {
    if (event.type === 'CollectiveClosureScheduled') {
      const d = event.data;
      out = {
        closureId: d.closureId,
        subgerenciaIds: d.scope.subgerenciaIds,
        companyContractId: d.scope.companyContractId,
        startDate: d.startDate,
        businessDays: d.businessDays,
        worksSaturday: d.worksSaturday,
        workers: d.records.map((r) => ({ workerId: r.workerId, documentNumber: r.documentNumber, codigoPila: r.codigoPila })),
        excluded: d.excluded,
        state: 'programada',
        scheduledBy: d.scheduledByUserId,
        scheduledAt: d.scheduledAt,
        approvedBy: null,
        approvedAt: null,
        approvedCodes: [],
        cancelledBy: null,
        cancelledAt: null,
        cancelReason: null,
        cancelledCodes: [],
      };
    } else if (out && event.type === 'CollectiveClosureApproved') {
      const d = event.data;
      out = { ...out, state: 'aprobada', approvedBy: d.approvedByUserId, approvedAt: d.approvedAt, approvedCodes: d.codes };
    } else if (out && event.type === 'CollectiveClosureCancelled') {
      const d = event.data;
      out = {
        ...out,
        state: 'cancelada',
        cancelledBy: d.cancelledByUserId,
        cancelledAt: d.cancelledAt,
        cancelReason: d.reason,
        cancelledCodes: d.codes,
      };
    }
  }
  return out;
}

const closureId = (e: DecodedEvent): string => (e.event.data as { closureId: string }).closureId;

/** Collective closures, one row each, for the panel's list and the audit of a closure. */
export const closuresProjector: Projector = defineProjector<ClosureRow>({
  name: 'closures',
  label: 'Vacaciones colectivas',
  readBy: 'panel',
  handles: new Set(['CollectiveClosureScheduled', 'CollectiveClosureApproved', 'CollectiveClosureCancelled']),
  table: CLOSURES_TABLE,
  columns: CLOSURE_COLUMNS,
  keyColumn: 'closure_id',
  unitOf: closureId,
  evolve: evolveClosure,
  rowsOf: (c): readonly Row[] => [
    { closure_id: c.closureId, start_date: c.startDate, state: c.state, scheduled_at: c.scheduledAt, closure: c },
  ],
  unitFrom: (rows) => rows[0]!.closure as ClosureRow,
  ddl(suffix) {
    const t = `${CLOSURES_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(CLOSURE_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (closure_id)
      );
      CREATE INDEX IF NOT EXISTS ${t}_start ON ${t} (start_date DESC, closure_id);
    `;
  },
});
