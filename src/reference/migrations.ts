import type { Migration } from '../db/types.ts';
import { vacWorkerRowsSql } from './vac-worker-rows.ts';

/** vac_worker_rows as the baseline created it, before sheets carried their leave. */
const BASELINE_VAC_WORKER_ROWS = `      CREATE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_contracts bigint[], sheet_starts integer[], sheet_ends integer[],
                       sheet_days integer[], sheet_pay bigint[])
        LANGUAGE sql STABLE AS $fn$
        WITH w AS (
          SELECT r.id, r.document_number, r.document_type, r.first_names, r.last_names
            FROM ref_workers r WHERE r.id IN (SELECT unnest(p_ids))
        ), k AS (
          SELECT c.worker_id,
                 jsonb_agg(jsonb_build_object(
                   'id', c.id, 'companyContractId', c.company_contract_id, 'subgerenciaId', c.subgerencia_id,
                   'startDate', c.start_date, 'endDate', c.end_date, 'settled', c.settled, 'additional', c.additional,
                   'baseSalary', c.base_salary, 'riskLevel', c.risk_level, 'technicalOrTrusted', c.technical_or_trusted,
                   'variableSalary', c.variable_salary,
                   'company', CASE WHEN cc.id IS NULL THEN NULL ELSE jsonb_build_object(
                     'id', cc.id, 'name', cc.name,
                     'vacationParams', CASE WHEN cc.has_vacation_params THEN jsonb_build_object(
                       'annualDays', cc.annual_days, 'annualDaysHighRisk', cc.annual_days_high_risk,
                       'minEnjoyedDays', cc.min_enjoyed_days, 'advanceAllowed', cc.advance_allowed,
                       'maxAdvanceDays', cc.max_advance_days, 'maxPeopleOnVacation', cc.max_people_on_vacation,
                       'compensationLimit', cc.compensation_limit) END) END
                 ) ORDER BY c.start_date NULLS FIRST, c.id) AS contracts
            FROM ref_contracts c
            JOIN w ON w.id = c.worker_id
            LEFT JOIN ref_company_contracts cc ON cc.id = c.company_contract_id
           GROUP BY c.worker_id
        ), p AS (
          SELECT s.worker_id,
                 array_agg(s.contract_id ORDER BY s.period_end, s.period_start, s.contract_id) AS sheet_contracts,
                 array_agg(s.period_start - DATE '1970-01-01' ORDER BY s.period_end, s.period_start, s.contract_id) AS sheet_starts,
                 array_agg(s.period_end - DATE '1970-01-01' ORDER BY s.period_end, s.period_start, s.contract_id) AS sheet_ends,
                 array_agg(s.days_worked ORDER BY s.period_end, s.period_start, s.contract_id) AS sheet_days,
                 array_agg(s.basic_compensation ORDER BY s.period_end, s.period_start, s.contract_id) AS sheet_pay
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
           GROUP BY s.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_contracts, '{}'), coalesce(p.sheet_starts, '{}'),
               coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}')
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;
`;

/**
 * The reference tables (the payroll system's master data), the indexes the searches use
 * (search.ts), and the per-worker read model the import keeps from them (rm_workers,
 * vac_worker_rows). Version 2 is the baseline: the schema as it stood at the first release, created
 * directly. Frozen once applied (test/unit/db/migrations.test.ts pins the hash of each): a change
 * is a new migration under the next free version number. vac_worker_rows has its live text in
 * vac-worker-rows.ts, which the baseline renders. src/migrations.ts runs them with the other
 * owners', in version order.
 */
export const referenceMigrations: Migration[] = [
  {
    version: 2,
    name: 'reference data: tables, searches, per-worker read model',
    sql: `
      -- Only the import writes the reference tables, and never deletes a row; before it writes, it
      -- checks every reference of the file against the file and the database in a few set-based
      -- queries, and refuses the file naming each bad row. Foreign keys would check them again one
      -- row at a time: three quarters of the database's work of loading payroll sheets.
      CREATE TABLE ref_subgerencias (
        id     text PRIMARY KEY,
        nombre text NOT NULL
      );
      CREATE TABLE ref_company_contracts (
        id                     bigint PRIMARY KEY,
        name                   text NOT NULL,
        has_vacation_params    boolean NOT NULL,
        annual_days            integer,
        annual_days_high_risk  integer,
        min_enjoyed_days       integer,
        advance_allowed        boolean,
        max_advance_days       integer,
        max_people_on_vacation integer,
        -- 'half': at most half of each accrual period's days may be paid in money while the
        -- contract is in force (CST art. 189, Ley 1429 de 2010 art. 20). Null keeps no such limit.
        compensation_limit     text CHECK (compensation_limit IN ('half'))
      );
      CREATE TABLE ref_workers (
        id              bigint PRIMARY KEY,
        document_type   text NOT NULL,
        document_number text NOT NULL UNIQUE,
        first_names     text NOT NULL,
        last_names      text NOT NULL
      );
      CREATE TABLE ref_contracts (
        id                   bigint PRIMARY KEY,
        worker_id            bigint NOT NULL,
        company_contract_id  bigint,
        subgerencia_id       text NOT NULL,
        start_date           date,
        end_date             date,
        settled              boolean NOT NULL,
        additional           boolean NOT NULL,
        base_salary          bigint NOT NULL,
        risk_level           integer,
        -- Technical, specialised, trusted or managerial staff may accumulate four years of
        -- vacations instead of two (CST art. 190).
        technical_or_trusted boolean NOT NULL DEFAULT false,
        -- A variable salary (CST art. 192 §2): its vacations are valued at the average of the year before.
        variable_salary      boolean NOT NULL DEFAULT false
      );
      CREATE INDEX ref_contracts_worker ON ref_contracts (worker_id);
      CREATE INDEX ref_contracts_subgerencia ON ref_contracts (subgerencia_id, company_contract_id);
      CREATE TABLE ref_payroll_sheets (
        contract_id        bigint NOT NULL,
        period_start       date NOT NULL,
        period_end         date NOT NULL,
        worker_id          bigint NOT NULL,
        days_worked        integer NOT NULL,
        basic_compensation bigint NOT NULL,
        PRIMARY KEY (contract_id, period_start)
      );
      CREATE INDEX ref_payroll_sheets_worker ON ref_payroll_sheets (worker_id);
      CREATE TABLE ref_users (
        id          bigint PRIMARY KEY,
        email       text NOT NULL,
        name        text NOT NULL,
        is_admin    boolean NOT NULL,
        permissions text[] NOT NULL DEFAULT '{}'
      );
      CREATE UNIQUE INDEX ref_users_email ON ref_users (lower(email));

      -- Bumped by every import that changes something, so that caches of reference data know when
      -- to drop; changed_at says when that last happened.
      CREATE TABLE ref_version (
        id         integer PRIMARY KEY CHECK (id = 1),
        version    bigint NOT NULL,
        changed_at timestamptz
      );
      INSERT INTO ref_version (id, version) VALUES (1, 0);
      CREATE FUNCTION ref_version_changed_at() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF NEW.version IS DISTINCT FROM OLD.version THEN NEW.changed_at := now(); END IF;
        RETURN NEW;
      END
      $fn$;
      CREATE TRIGGER ref_version_changed_at BEFORE UPDATE ON ref_version
        FOR EACH ROW EXECUTE FUNCTION ref_version_changed_at();

      -- The searches by name and by the beginning of a document number: bounded index scans, never
      -- a pass over every worker. Names are compared without case or accents.
      CREATE INDEX ref_workers_last_names_search ON ref_workers
        (lower(translate(last_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_first_names_search ON ref_workers
        (lower(translate(first_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_full_name_search ON ref_workers
        (lower(translate(first_names || ' ' || last_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_document_prefix ON ref_workers (document_number text_pattern_ops);

      -- One row per worker with what consult and calculate need, folded from the reference tables
      -- once per change instead of once per request: the contracts (each with its company
      -- contract's rules, in the order start date, a missing one first, then id) and every payroll
      -- sheet as paid, as arrays side by side in the order end, start, contract: the contract it
      -- names, its first and last day (days since 1970-01-01), the days worked and the basic
      -- compensation. version is the reference data version that last changed the row.
      CREATE TABLE rm_workers (
        worker_id       bigint PRIMARY KEY,
        document_number text NOT NULL,
        document_type   text NOT NULL,
        first_names     text NOT NULL,
        last_names      text NOT NULL,
        contracts       jsonb NOT NULL,
        version         bigint NOT NULL,
        sheet_contracts bigint[] NOT NULL DEFAULT '{}',
        sheet_starts    integer[] NOT NULL DEFAULT '{}',
        sheet_ends      integer[] NOT NULL DEFAULT '{}',
        sheet_days      integer[] NOT NULL DEFAULT '{}',
        sheet_pay       bigint[] NOT NULL DEFAULT '{}'
      );
      -- Not unique: an import that hands a document number from one worker to another rewrites
      -- both rows in one statement, and ref_workers keeps the numbers unique.
      CREATE INDEX rm_workers_document ON rm_workers (document_number);
      CREATE INDEX rm_workers_version ON rm_workers (version);

      -- The rows of these workers (those that exist), computed from the reference tables.
${BASELINE_VAC_WORKER_ROWS}    `,
  },
  {
    version: 71,
    name: 'payroll sheets break their days down by kind of leave',
    sql: `
      -- Days of a sheet not worked, by kind (src/domain/accrual.ts says which accrue); 0 on sheets
      -- that do not break their days down, which accrue exactly as before.
      ALTER TABLE ref_payroll_sheets
        ADD COLUMN sick_days          integer NOT NULL DEFAULT 0,
        ADD COLUMN paid_leave_days    integer NOT NULL DEFAULT 0,
        ADD COLUMN vacation_days      integer NOT NULL DEFAULT 0,
        ADD COLUMN unpaid_leave_days  integer NOT NULL DEFAULT 0,
        ADD COLUMN suspension_days    integer NOT NULL DEFAULT 0;
      -- The worker's sheets' leave as five lists side by side with the other sheet lists (sick,
      -- paid leave, vacation, unpaid leave, suspension); NULL when no sheet of the worker has any.
      ALTER TABLE rm_workers ADD COLUMN sheet_leave jsonb;
      DROP FUNCTION vac_worker_rows(bigint[]);
${vacWorkerRowsSql}    `,
  },
];
