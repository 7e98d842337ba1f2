import type { CompanyContract, Contract, PayrollRow, User, Worker } from './types.ts';

/**
 * The reference tables' rows as the service names them: the columns each read selects and the
 * mapping of a row to its type.
 */

const day = (v: unknown): string => String(v);

export type Row = Record<string, unknown>;

export const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const WORKER_COLUMNS = 'id, document_type, document_number, first_names, last_names';
export const CONTRACT_COLUMNS =
  'id, worker_id, company_contract_id, subgerencia_id, start_date, end_date, settled, additional, base_salary, risk_level, ' +
  'technical_or_trusted, variable_salary';
export const SHEET_COLUMNS =
  'contract_id, worker_id, period_start, period_end, days_worked, basic_compensation, ' +
  'sick_days, paid_leave_days, vacation_days, unpaid_leave_days, suspension_days';
export const COMPANY_COLUMNS =
  'id, name, has_vacation_params, annual_days, annual_days_high_risk, min_enjoyed_days, advance_allowed, ' +
  'max_advance_days, max_people_on_vacation, compensation_limit';

export function toWorker(r: Row): Worker {
  return {
    id: num(r.id),
    documentType: String(r.document_type),
    documentNumber: String(r.document_number),
    firstNames: String(r.first_names),
    lastNames: String(r.last_names),
  };
}

export function toContract(r: Row): Contract {
  return {
    id: num(r.id),
    workerId: num(r.worker_id),
    companyContractId: numOrNull(r.company_contract_id),
    subgerenciaId: String(r.subgerencia_id),
    startDate: r.start_date == null ? null : day(r.start_date),
    endDate: r.end_date == null ? null : day(r.end_date),
    settled: Boolean(r.settled),
    additional: Boolean(r.additional),
    baseSalary: num(r.base_salary),
    riskLevel: numOrNull(r.risk_level),
    technicalOrTrusted: Boolean(r.technical_or_trusted),
    variableSalary: Boolean(r.variable_salary),
  };
}

export function toSheet(r: Row): PayrollRow {
  const sheet: PayrollRow = {
    contractId: num(r.contract_id),
    workerId: num(r.worker_id),
    periodStart: day(r.period_start),
    periodEnd: day(r.period_end),
    daysWorked: num(r.days_worked),
    basicCompensation: num(r.basic_compensation),
  };
  const leave = {
    sick: num(r.sick_days ?? 0),
    paidLeave: num(r.paid_leave_days ?? 0),
    vacation: num(r.vacation_days ?? 0),
    unpaidLeave: num(r.unpaid_leave_days ?? 0),
    suspension: num(r.suspension_days ?? 0),
  };
  if (leave.sick + leave.paidLeave + leave.vacation + leave.unpaidLeave + leave.suspension > 0) sheet.leave = leave;
  return sheet;
}

export function toCompanyContract(r: Row): CompanyContract {
  return {
    id: num(r.id),
    name: String(r.name),
    vacationParams: r.has_vacation_params
      ? {
          annualDays: num(r.annual_days),
          annualDaysHighRisk: num(r.annual_days_high_risk),
          minEnjoyedDays: num(r.min_enjoyed_days),
          advanceAllowed: Boolean(r.advance_allowed),
          maxAdvanceDays: num(r.max_advance_days),
          maxPeopleOnVacation: numOrNull(r.max_people_on_vacation),
          compensationLimit: r.compensation_limit === 'half' ? 'half' : null,
        }
      : null,
  };
}

export function toUser(r: Row): User {
  return {
    id: num(r.id),
    email: String(r.email),
    name: String(r.name),
    isAdmin: Boolean(r.is_admin),
    permissions: [...((r.permissions as string[] | null) ?? [])],
  };
}
