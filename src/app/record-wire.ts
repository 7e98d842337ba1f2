import { z } from 'zod';
import { vacationRecordSchema as record, type VacationRecord } from '../events/types.ts';
import type { RegisterEntry } from '../projections/register/queries.ts';
import { flagText } from './fields.ts';
import { code, date, flag } from './wire-parts.ts';

/**
 * A vacation record as the interface names it (the spec's `vac*` fields): one mapping from the
 * record's own fields and one schema beside it, for every answer that shows a record (calculate,
 * add, edit, a closure's lines, the register). The schema's numbers are the record's own
 * (src/events/types.ts); its dates and codes carry the interface's formats.
 */

/** The figures every vacation answer shows, from a record or a judged request alike. */
type Figures = Pick<VacationRecord, 'workerId' | 'startDate' | 'endDate' | 'businessDays' | 'calendarDays' | 'salary' | 'totalValue'>;

/** The figures of the days themselves, without the worker (the register names the worker once, above its records). */
const daysWire = (f: Omit<Figures, 'workerId'>) => ({
  vacFechaInicio: f.startDate,
  vacFechaFinal: f.endDate,
  vacDiasVacaciones: f.businessDays,
  vacDiasCalendario: f.calendarDays,
  vacSalario: f.salary,
  vacValorTotal: f.totalValue,
});

export const figuresWire = (f: Figures) => ({ vacAsociado: f.workerId, ...daysWire(f) });

const DAYS_WIRE = {
  vacFechaInicio: date,
  vacFechaFinal: date,
  vacDiasVacaciones: record.shape.businessDays,
  vacDiasCalendario: record.shape.calendarDays,
  vacSalario: record.shape.salary,
  vacValorTotal: record.shape.totalValue,
};

export const FIGURES_WIRE = { vacAsociado: record.shape.workerId, ...DAYS_WIRE };

/** A booked record as add and edit answer it. */
export const recordWire = (r: VacationRecord) => ({ ...figuresWire(r), vacCodigoPila: r.codigoPila });

export const RECORD_WIRE = z.strictObject({ ...FIGURES_WIRE, vacCodigoPila: code });

/** The state of a record in the register. */
export function recordState(r: Pick<RegisterEntry, 'approved' | 'interruptedOn'>): 'registrada' | 'aprobada' | 'interrumpida' {
  if (r.interruptedOn) return 'interrumpida';
  return r.approved ? 'aprobada' : 'registrada';
}

export const modalidad = (compensated: boolean) => (compensated ? ('compensadas en dinero' as const) : ('disfrutadas' as const));

/**
 * A record of the register as its lines show it; `underSettled`: it was taken under a settled
 * contract (history: the balance does not take it).
 */
export function registerWire(r: RegisterEntry, underSettled = false) {
  return {
    id: r.recordId,
    vacCodigoPila: r.codigoPila,
    contratoId: r.contractId,
    subgerenciaId: r.subgerenciaId,
    ...daysWire(r),
    vacCompensado: flagText(r.compensated)!,
    vacPagado: flagText(r.advance)!,
    modalidad: modalidad(r.compensated),
    estado: recordState(r),
    aprobada: r.approved,
    fechaInterrupcion: r.interruptedOn,
    motivoInterrupcion: r.interruptionReason,
    continuaDe: r.continues,
    contratoLiquidado: underSettled,
  };
}

export const MODALIDAD = z.enum(['disfrutadas', 'compensadas en dinero']);
export const ESTADO = z.enum(['registrada', 'aprobada', 'interrumpida']);

export const REGISTER_RECORD_WIRE = z.strictObject({
  id: record.shape.recordId,
  vacCodigoPila: code,
  contratoId: record.shape.contractId,
  subgerenciaId: record.shape.subgerenciaId,
  ...DAYS_WIRE,
  vacFechaFinal: date.meta({
    description: 'Último día disfrutado; en unas vacaciones interrumpidas, el último día hábil antes de la interrupción',
  }),
  vacDiasVacaciones: record.shape.businessDays.meta({ description: 'Días hábiles (los disfrutados, si se interrumpieron)' }),
  vacCompensado: flag,
  vacPagado: flag,
  modalidad: MODALIDAD,
  estado: ESTADO,
  aprobada: z.boolean(),
  fechaInterrupcion: date.nullable().meta({ description: 'Primer día no disfrutado (CST art. 188)' }),
  motivoInterrupcion: z.string().nullable(),
  continuaDe: code.nullable().meta({ description: 'Código de las vacaciones interrumpidas cuyos días pendientes toma este registro' }),
  contratoLiquidado: z.boolean().meta({
    description:
      'Se tomaron bajo un contrato ya liquidado: quedan como historia y no se descuentan del saldo (se pagaron en su liquidación)',
  }),
});
