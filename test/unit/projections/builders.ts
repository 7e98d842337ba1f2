import type { RegisterEntry } from '../../../src/projections/register/queries.ts';

/** A live enjoyed record of the register, approved. */
export function entry(codigoPila: string, startDate: string, businessDays: number, over: Partial<RegisterEntry> = {}): RegisterEntry {
  return {
    codigoPila,
    recordId: Number(codigoPila.replace(/\D/g, '')) || 1,
    workerId: 1001,
    contractId: 10001,
    subgerenciaId: 'SG-OPS',
    startDate,
    endDate: startDate,
    businessDays,
    calendarDays: businessDays,
    salary: 3_000_000,
    totalValue: businessDays * 100_000,
    compensated: false,
    advance: false,
    approved: true,
    interruptedOn: null,
    interruptionReason: null,
    continues: null,
    recordedOn: startDate,
    ...over,
  };
}
