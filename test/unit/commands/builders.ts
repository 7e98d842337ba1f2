import { HolidayCalendar, addDays, monthOf, payrollOf, type PayrollSheet } from '../../../src/domain/index.ts';
import type { ContractRef, Scope, VacationParams, VacationRequest, WorkerFile } from '../../../src/commands/types.ts';
import type { DomainEvent } from '../../../src/events/types.ts';
import { foldWorker, type WorkerState } from '../../../src/events/worker-state.ts';
import { foldUnit, type UnitOccupancy } from '../../../src/commands/occupancy.ts';
import type {
  CreateVacation,
  EditVacation,
  Given,
  InterruptionRequest,
  InterruptVacation,
  VacationCommand,
} from '../../../src/commands/decide.ts';

export const calendar = new HolidayCalendar();

export const params = (over: Partial<VacationParams> = {}): VacationParams => ({
  annualDays: 15,
  annualDaysHighRisk: 30,
  minEnjoyedDays: 6,
  advanceAllowed: true,
  maxAdvanceDays: 5,
  maxPeopleOnVacation: 2,
  compensationLimit: null,
  ...over,
});

export const contract = (over: Partial<ContractRef> = {}): ContractRef => ({
  id: 10001,
  companyContractId: 10,
  subgerenciaId: 'SG-OPS',
  startDate: '2024-02-01',
  endDate: '2027-01-31',
  settled: false,
  additional: false,
  baseSalary: 2_847_000,
  riskLevel: 1,
  technicalOrTrusted: false,
  variableSalary: false,
  ...over,
});

/** Fortnightly sheets of 15 days each of contract `contractId` from `from` through the month of `through`. */
/** A payroll sheet of a worker file's contracts (ids as the repository gives them). */
export type SheetRef = Omit<PayrollSheet, 'contractId'> & { contractId: number };

export function fortnights(from: string, through: string, salary = 2_847_000, contractId = 10001): SheetRef[] {
  const sheets: SheetRef[] = [];
  let month = monthOf(from);
  while (month <= monthOf(through)) {
    const first = `${month}-01`;
    const next = addDays(first, 32).slice(0, 7) + '-01';
    const last = addDays(next, -1);
    sheets.push({ contractId, periodStart: first, periodEnd: `${month}-15`, daysWorked: 15, basicCompensation: Math.round(salary / 2) });
    sheets.push({ contractId, periodStart: `${month}-16`, periodEnd: last, daysWorked: 15, basicCompensation: Math.round(salary / 2) });
    month = next.slice(0, 7);
  }
  return sheets;
}

export function workerFile(
  over: { contracts?: ContractRef[]; sheets?: SheetRef[]; params?: VacationParams | null; companyContractId?: number } = {},
): WorkerFile {
  const contracts = over.contracts ?? [contract()];
  return {
    worker: { id: 1001, documentNumber: '1020307007' },
    contracts,
    payroll: payrollOf(over.sheets ?? fortnights('2024-02-01', '2026-10-31'), contracts),
    companyContracts: new Map([[10, { id: 10, vacationParams: over.params === undefined ? params() : over.params }]]),
  };
}

export const request = (over: Partial<VacationRequest> = {}): VacationRequest => ({
  startDate: '2026-01-05',
  days: 15,
  advance: false,
  worksSaturday: false,
  compensated: false,
  socialSecurityInPayroll: null,
  ...over,
});

/** The moment and record id of an attempt: `n` varies the time and random bytes, and so the code. */
export const attempt = (recordId = 1, n = 0): Given => ({
  recordId,
  nowIso: '2026-11-21T12:00:00.000Z',
  epochMillis: 1_795_000_000_000 + n,
  randomHex8: (0xabc00000 + n).toString(16),
});

export function stateOf(events: DomainEvent[]): WorkerState {
  return foldWorker(events.map((event, revision) => ({ event, revision })));
}

export function unitOf(subgerenciaId: string, bookings: { code: string; workerId: number; start: string; end: string }[]): UnitOccupancy {
  const events: DomainEvent[] = bookings.map((b) => ({
    type: 'SlotsBooked',
    data: { codigoPila: b.code, workerId: b.workerId, subgerenciaId, startDate: b.start, endDate: b.end },
  }));
  return foldUnit(subgerenciaId, [{ month: '2026-01', revision: events.length - 1, events }]);
}

/** What a command judges besides the request: the worker file, the calendar and the occupancy read. */
interface Around {
  file?: WorkerFile;
  occupancy?: UnitOccupancy;
  recordId?: number;
  n?: number;
  /** The actor's scope: every subgerencia unless given. */
  scope?: Scope;
}

const judged = (over: Partial<VacationRequest>, a: Around) => ({
  request: request(over),
  file: a.file ?? workerFile(),
  calendar,
  ...(a.occupancy ? { occupancy: a.occupancy } : {}),
  ...attempt(a.recordId ?? 1, a.n ?? 0),
  scope: a.scope ?? null,
});

export const create = (over: Partial<VacationRequest> = {}, a: Around = {}): CreateVacation => ({
  type: 'CreateVacation',
  data: judged(over, a),
});

export const edit = (code: string, over: Partial<VacationRequest> = {}, a: Around & { userId?: number } = {}): EditVacation => ({
  type: 'EditVacation',
  data: { ...judged(over, a), code, userId: a.userId ?? 1 },
});

export const remove = (code: string, userId = 1, scope: Scope = null): VacationCommand => ({
  type: 'DeleteVacation',
  data: { code, userId, nowIso: attempt().nowIso, scope },
});

export const approve = (code: string, userId = 1, scope: Scope = null): VacationCommand => ({
  type: 'ApproveVacation',
  data: { code, userId, nowIso: attempt().nowIso, scope },
});

export const interrupt = (
  code: string,
  date: string,
  today: string,
  reason: InterruptionRequest['reason'] = 'incapacidad',
  userId = 3,
  scope: Scope = null,
): InterruptVacation => ({
  type: 'InterruptVacation',
  data: { code, date, reason, today, calendar, userId, nowIso: attempt().nowIso, scope },
});
