import type { SheetLeave } from '../domain/accrual.ts';
import type { Payroll } from '../domain/index.ts';
/** The reference data as the service names it: what the import writes and the requests read. */

export interface Worker {
  id: number;
  documentType: string;
  documentNumber: string;
  firstNames: string;
  lastNames: string;
}

export interface Contract {
  id: number;
  workerId: number;
  companyContractId: number | null;
  subgerenciaId: string;
  startDate: string | null;
  endDate: string | null;
  settled: boolean;
  additional: boolean;
  baseSalary: number;
  riskLevel: number | null;
  /**
   * Technical, specialised, trusted or managerial staff, who may accumulate vacations for four
   * years instead of two (CST art. 190).
   */
  technicalOrTrusted: boolean;
  /** Vacations are paid at the average of the year before, not the base salary (CST art. 192 §2). */
  variableSalary: boolean;
}

/** A payroll sheet as the reference table holds it. */
export interface PayrollRow {
  contractId: number;
  workerId: number;
  periodStart: string;
  periodEnd: string;
  daysWorked: number;
  basicCompensation: number;
  /** The days not worked, by kind; absent when the sheet does not break its days down. */
  leave?: SheetLeave;
}

export interface VacationParams {
  annualDays: number;
  annualDaysHighRisk: number;
  minEnjoyedDays: number;
  advanceAllowed: boolean;
  maxAdvanceDays: number;
  maxPeopleOnVacation: number | null;
  /**
   * 'half': while the contract is in force, at most half of each accrual period's days may be paid
   * in money (CST art. 189, Ley 1429 de 2010 art. 20). null: no limit of the service's own.
   */
  compensationLimit: 'half' | null;
}

export interface CompanyContract {
  id: number;
  name: string;
  /** Null when the company contract has no vacation rules of its own. */
  vacationParams: VacationParams | null;
}

export interface User {
  id: number;
  email: string;
  name: string;
  isAdmin: boolean;
  permissions: string[];
}

/**
 * One worker as the reference tables hold it: contracts, payroll sheets and the company contracts
 * (the import reads it; requests read the per-worker read model).
 */
export interface WorkerRecords {
  worker: Worker;
  contracts: Contract[];
  sheets: PayrollRow[];
  companyContracts: Map<number, CompanyContract>;
}

/** The parts of the payroll master data the commands and the law's reports read; the repository's rows fit as they are. */
export type WorkerRef = Pick<Worker, 'id' | 'documentNumber'>;
export type ContractRef = Omit<Contract, 'workerId'>;
export type CompanyContractRef = Pick<CompanyContract, 'id' | 'vacationParams'>;

export interface WorkerFile {
  worker: WorkerRef;
  contracts: ContractRef[];
  /** The payroll sheets as paid, with the contract each names (src/domain/ledger.ts reads them). */
  payroll: Payroll;
  companyContracts: ReadonlyMap<number, CompanyContractRef>;
}
