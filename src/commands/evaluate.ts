import {
  Days360,
  amortize,
  annualDaysFor,
  balanceOn,
  calendarDays,
  companyContractOf,
  endDate,
  governingContract,
  isBusinessDay,
  nextBusinessDay,
  salaryOn,
  toDecimal2,
  vacationValue,
  type HolidayLookup,
} from '../domain/index.ts';
import { firstFullDay, type UnitOccupancy } from './occupancy.ts';
import type { ContractRef, VacationFigures, VacationParams, VacationRequest, WorkerFile } from './types.ts';
import type { RuleViolation } from './violations.ts';
import { ledgerRecord, liveVacations, type JudgedState, type JudgedVacation } from '../events/worker-state.ts';

export interface EvaluationInput {
  request: VacationRequest;
  file: WorkerFile;
  state: JudgedState;
  calendar: HolidayLookup;
  /** The record an edit replaces: it is not taken, does not overlap and holds no place. */
  replacing?: string;
  /** Occupancy of the governing contract's subgerencia over the period, when rule (d) applies. */
  occupancy?: UnitOccupancy;
  /** place() of this request when the caller already computed it (null: no contract governs). */
  placement?: Placement | null;
}

export type Evaluation =
  { ok: true; figures: VacationFigures; params: VacationParams } | { ok: false; violations: RuleViolation[]; figures?: VacationFigures };

/** Where the period falls and which contract governs it, before the figures are computed. */
export interface Placement {
  contract: ContractRef;
  endDate: string;
}

/** The contract on the start date and the period's end, or undefined when no contract governs. */
export function place(request: VacationRequest, file: WorkerFile, calendar: HolidayLookup): Placement | undefined {
  const contract = governingContract(file.contracts, request.startDate);
  if (!contract) return undefined;
  return { contract, endDate: endOf(request, calendar) };
}

/** The last business day of the period: the calendar alone decides it. */
function endOf(request: VacationRequest, calendar: HolidayLookup): string {
  const first = nextBusinessDay(request.startDate, request.worksSaturday, calendar);
  return endDate(first, request.days, request.worksSaturday, calendar);
}

/**
 * The end of a period no contract governs, which may run past the last date the calendar can
 * name (a start in 9999): no recorded vacation can reach there, so there is nothing to overlap.
 */
function endOrUndefined(request: VacationRequest, calendar: HolidayLookup): string | undefined {
  try {
    return endOf(request, calendar);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

/** Rule (e): an enjoyed vacation may not share a day with another live enjoyed one of the worker. */
function overlapping(request: VacationRequest, end: string, others: readonly JudgedVacation[]): RuleViolation | undefined {
  if (request.compensated) return undefined;
  const clash = others.find((v) => !v.compensated && v.startDate <= end && v.endDate >= request.startDate);
  return clash && { rule: 'overlap', codigoPila: clash.codigoPila, startDate: clash.startDate, endDate: clash.endDate };
}

/**
 * A record that continues an interrupted one (CST art. 188) books at most the days the
 * interruption gave back that no other live record of the worker has booked since.
 */
function continuation(request: VacationRequest, state: JudgedState, others: readonly JudgedVacation[]): RuleViolation | undefined {
  const code = request.continues;
  if (!code) return undefined;
  const interrupted = state.vacations.get(code);
  if (!interrupted || interrupted.deleted) return { rule: 'continuesUnknown', codigoPila: code };
  if (!interrupted.interruptedOn) return { rule: 'continuesNotInterrupted', codigoPila: code };
  const booked = others.filter((v) => v.continues === code).reduce((n, v) => n + v.businessDays, 0);
  const left = interrupted.daysReturned - booked;
  return request.days > left
    ? { rule: 'continuesOverReturned', requested: request.days, left: Math.max(0, left), codigoPila: code }
    : undefined;
}

/** A live record as the ledger reads it. */
/**
 * Computes a vacation and checks every business rule, listing every one that fails. Pure:
 * the caller supplies the worker's stream state, reference data, calendar and occupancy.
 */
export function evaluate(input: EvaluationInput): Evaluation {
  const { request, file, state, calendar, replacing } = input;
  const violations: RuleViolation[] = [];
  const placement = input.placement === undefined ? place(request, file, calendar) : (input.placement ?? undefined);
  const businessDay = isBusinessDay(request.startDate, request.worksSaturday, calendar);
  const others = liveVacations(state).filter((v) => v.codigoPila !== replacing);

  if (!placement) {
    // Without a contract there are no parameters nor balances to judge, but the period still
    // has an end, so an overlap is reported beside the missing contract.
    violations.push({ rule: 'noContract' });
    if (!businessDay) violations.push({ rule: 'notBusinessDay', startDate: request.startDate });
    const end = endOrUndefined(request, calendar);
    const clash = end === undefined ? undefined : overlapping(request, end, others);
    if (clash) violations.push(clash);
    return { ok: false, violations };
  }
  const { contract } = placement;
  const end = placement.endDate;
  const company = companyContractOf(file, contract);
  const params = company?.vacationParams ?? null;
  if (!company) violations.push({ rule: 'noCompanyContract' });
  else if (!params) violations.push({ rule: 'noVacationParams' });
  if (contract.riskLevel === null) violations.push({ rule: 'noRiskLevel' });
  if (!businessDay) violations.push({ rule: 'notBusinessDay', startDate: request.startDate });

  const annual = params ? annualDaysFor(contract.riskLevel, params) : null;
  // The balance on the start date is the ledger's, the one every view of the worker reads.
  const balance = balanceOn(file, others.map(ledgerRecord), request.startDate);
  const accrued = Days360.fromUnits(balance.accruedUnits);
  const available = Days360.fromUnits(balance.availableUnits);
  const salary = salaryOn(file, contract, request.startDate);
  const total = vacationValue(salary, request.days);

  const figures: VacationFigures = {
    workerId: file.worker.id,
    documentNumber: file.worker.documentNumber,
    contractId: contract.id,
    companyContractId: contract.companyContractId,
    subgerenciaId: contract.subgerenciaId,
    startDate: request.startDate,
    endDate: end,
    businessDays: request.days,
    calendarDays: calendarDays(request.startDate, end),
    salary,
    totalValue: total,
    advance: request.advance,
    worksSaturday: request.worksSaturday,
    compensated: request.compensated,
    socialSecurityInPayroll: request.socialSecurityInPayroll,
    amortizations: amortize({ start: request.startDate, end, worksSaturday: request.worksSaturday, total, calendar }),
    availableUnits: available.units,
    accruedUnits: accrued.units,
  };

  if (params && annual !== null) {
    const requested = Days360.fromWholeDays(request.days);
    const shown = toDecimal2(available);
    if (!request.advance && requested.units > available.units) {
      violations.push({ rule: 'notEnoughDays', requested: request.days, available: shown }); // (a)
    }
    // A continuation books days already granted: it may be shorter than the minimum (DOMAIN (b)).
    if (!request.compensated && !request.continues && request.days < params.minEnjoyedDays) {
      violations.push({ rule: 'belowMinimum', requested: request.days, minimum: params.minEnjoyedDays }); // (b)
    }
    if (request.advance && requested.units > available.units) {
      // (c) available may already be negative: the days owed never exceed the maximum in total.
      const inAdvance = requested.minus(available);
      if (!params.advanceAllowed) violations.push({ rule: 'advanceNotAllowed', requested: request.days, available: shown });
      else if (inAdvance.units > params.maxAdvanceDays * 360) {
        violations.push({ rule: 'advanceOverMaximum', inAdvance: toDecimal2(inAdvance), maximum: params.maxAdvanceDays });
      }
    }
    if (request.compensated && params.compensationLimit === 'half') {
      // (g) Days not yet earned cannot be paid in money: half of what was accrued by the start.
      const inMoney = balance.compensatedUnits + requested.units;
      if (inMoney * 2 > balance.accruedUnits) {
        violations.push({
          rule: 'compensationOverHalf',
          compensated: toDecimal2(Days360.fromUnits(inMoney)),
          accrued: toDecimal2(accrued),
        });
      }
    }
    if (!request.compensated && params.maxPeopleOnVacation !== null && input.occupancy) {
      const day = firstFullDay(input.occupancy, file.worker.id, request.startDate, end, params.maxPeopleOnVacation, replacing);
      if (day) {
        violations.push({ rule: 'unitFull', maximum: params.maxPeopleOnVacation, subgerenciaId: contract.subgerenciaId, day }); // (d)
      }
    }
  }
  // (f) A vacation is enjoyed while the contract runs; days left at its end are paid in the settlement.
  if (contract.endDate !== null && end > contract.endDate)
    violations.push({ rule: 'endsAfterContract', endDate: end, contractEnd: contract.endDate });
  const clash = overlapping(request, end, others);
  if (clash) violations.push(clash);
  const linked = continuation(request, state, others);
  if (linked) violations.push(linked);
  return violations.length ? { ok: false, violations, figures } : { ok: true, figures, params: params! };
}
