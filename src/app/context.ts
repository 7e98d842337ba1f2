import type { VacationCommands } from '../commands/vacation-commands.ts';
import type { ClosureCommands } from '../commands/closures.ts';
import type { PlanBooking } from '../commands/plan-booking.ts';
import type { Config } from '../config/config.ts';
import type { InstanceLiveness } from '../db/instance-liveness.ts';
import type { Db } from '../db/types.ts';
import type { HolidayLookup, LedgerRecord } from '../domain/index.ts';
import type { AuditEntry } from '../projections/audit-trail/queries.ts';
import type { ClosureRow } from '../projections/closures/queries.ts';
import type { VacationView } from '../projections/vacations/queries.ts';
import type { PeriodsReport } from '../projections/reports/periods.ts';
import type { SettlementOutcome } from '../projections/reports/settlement.ts';
import type { ReferenceLookups } from '../reference/repository.ts';
import type { WorkerFileRow } from '../reference/worker-files.ts';
import type { ApiKeyPrincipal } from '../security/api-keys.ts';
import type { EventStore, Position, StreamWrite } from '../store/types.ts';

/** What the read endpoints and the audited queries need from the projections. */
export interface ReadSide {
  /**
   * Read-your-writes: a write this instance has acknowledged. Every read that starts afterwards
   * waits (bounded) until the read models include it, so the write's answer itself does not.
   */
  noteWrite(position: Position): void;
  /**
   * An audited query's record (a consult, a contract check, a failed edit) this instance stored:
   * the audit trail's reads that start afterwards wait (bounded) until it is in; no other read does.
   */
  noteAudit(position: Position): void;
  /** A worker's live records as the ledger reads them (the balance's records), from the folded states. */
  liveRecordsOf(workerId: number): Promise<LedgerRecord[]>;
  vacationsOfWorker(workerId: number, opts: { includeDeleted: boolean }): Promise<VacationView[]>;
  vacationByCode(code: string): Promise<VacationView | null>;
  auditOfWorker(workerId: number, opts: { limit: number }): Promise<AuditEntry[]>;
  auditOfCode(code: string): Promise<AuditEntry[]>;
  /** A worker's accrual periods on `asOf`, from the register's live records and the payroll. */
  periodsOf(file: WorkerFileRow, asOf: string): Promise<PeriodsReport>;
  /** What a worker leaving on that date would be owed for vacations, or why it cannot be figured. */
  settlementOf(file: WorkerFileRow, leavingDate: string): Promise<SettlementOutcome>;
  /** The latest collective closures, newest start first; one by its id. */
  closures(): Promise<ClosureRow[]>;
  closureById(id: string): Promise<ClosureRow | null>;
  /** Any other read of the read models, once they include this instance's writes (and, asked, the occupancy one). */
  fresh<T>(read: () => Promise<T>, opts?: { occupancy?: boolean }): Promise<T>;
}

export interface HttpMetrics {
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  commandOutcome(command: string, outcome: string): void;
}

/** One read model's progress, as the panel's Operación page shows it. */
export interface ProjectionProgress {
  name: string;
  checkpoint: Position;
  head: Position;
  lag: number;
  state: string;
}

export interface AppDeps {
  config: Config;
  db: Db;
  store: EventStore;
  reference: ReferenceLookups;
  commands: VacationCommands;
  /** Collective closures: many workers' records decided and written as one. */
  closures: ClosureCommands;
  /** The annual plan booked all or nothing: every line's record written as one. */
  planBooking: PlanBooking;
  /** Where audited queries record themselves (gathered into shared appends). */
  audits: { append(writes: StreamWrite[]): Promise<Position> };
  readSide: ReadSide;
  /**
   * Resolves when this instance's read models next take in new events (an append here or
   * elsewhere), or after `ms`: what a long poll of the change feed waits on. Undefined (or
   * answering undefined) where the projectors run elsewhere: the feed then looks again now and then.
   */
  nextAppend?: (ms: number) => Promise<void> | undefined;
  /**
   * Whether the process behind an idempotency claim still runs, so that a claim of one that
   * ended is taken over at once. Without it such a claim is taken over once it is old.
   */
  liveness?: InstanceLiveness;
  verifyApiKey(key: string): Promise<ApiKeyPrincipal | null>;
  today(): string;
  /** The holiday calendar business days are counted with (the operator's corrections included). */
  calendar: HolidayLookup;
  now?: () => Date;
  metrics?: HttpMetrics;
  /** Prometheus text for /metrics, when metrics are on. */
  metricsText?: () => Promise<{ contentType: string; body: string }>;
  /** Readiness of every dependency; throws with a reason when one is down. */
  checkReady(): Promise<void>;
  /** Each read model's checkpoint and lag behind the event log. */
  projectionStatus(): Promise<ProjectionProgress[]>;
}
