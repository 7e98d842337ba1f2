import type { Migration } from '../db/types.ts';
import { vacWorkerRowsSql } from './vac-worker-rows.ts';

/**
 * The reference tables (the payroll system's master data) and the per-worker read model the
 * import keeps from them (rm_workers, vac_worker_rows). Frozen: the text of an applied migration never
 * changes (test/unit/db/migrations.test.ts pins the hash of each); a change is a new migration
 * under the next free version number. vac_worker_rows has its live text in vac-worker-rows.ts,
 * which migration 25, the last to create it, renders. src/db/migrations.ts runs them with the
 * other owners', in version order.
 */
export const referenceMigrations: Migration[] = [
  {
    version: 2,
    name: 'reference data',
    sql: `
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
        max_people_on_vacation integer
      );
      CREATE TABLE ref_workers (
        id              bigint PRIMARY KEY,
        document_type   text NOT NULL,
        document_number text NOT NULL UNIQUE,
        first_names     text NOT NULL,
        last_names      text NOT NULL
      );
      CREATE TABLE ref_contracts (
        id                  bigint PRIMARY KEY,
        worker_id           bigint NOT NULL REFERENCES ref_workers (id),
        company_contract_id bigint,
        subgerencia_id      text NOT NULL REFERENCES ref_subgerencias (id),
        start_date          date,
        end_date            date,
        settled             boolean NOT NULL,
        additional          boolean NOT NULL,
        base_salary         bigint NOT NULL,
        risk_level          integer
      );
      CREATE INDEX ref_contracts_worker ON ref_contracts (worker_id);
      CREATE TABLE ref_payroll_sheets (
        contract_id        bigint NOT NULL REFERENCES ref_contracts (id),
        period_start       date NOT NULL,
        period_end         date NOT NULL,
        worker_id          bigint NOT NULL REFERENCES ref_workers (id),
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
      -- Bumped by every import so that caches of reference data know when to drop.
      CREATE TABLE ref_version (
        id      integer PRIMARY KEY CHECK (id = 1),
        version bigint NOT NULL
      );
      INSERT INTO ref_version (id, version) VALUES (1, 0);
    `,
  },
  {
    version: 18,
    name: 'per-worker read model',
    sql: `
      -- One row per worker with what consult and calculate need, folded from the reference tables
      -- once per change instead of once per request: the contracts (each with its company
      -- contract's rules, in the order start date, a missing one first, then id) and the payroll,
      -- as three arrays over the dates on which sheets of the worker end, ascending: the date (days
      -- since 1970-01-01), the days worked of the sheets that count (of main contracts, by
      -- contract id, inside that contract's dates; null when none of that date's sheets counts)
      -- and the basic compensation of that date's sheets. version is the reference data version
      -- that last changed the row.
      CREATE TABLE rm_workers (
        worker_id       bigint PRIMARY KEY,
        document_number text NOT NULL,
        document_type   text NOT NULL,
        first_names     text NOT NULL,
        last_names      text NOT NULL,
        contracts       jsonb NOT NULL,
        sheet_ends      integer[] NOT NULL,
        sheet_days      integer[] NOT NULL,
        sheet_pay       bigint[] NOT NULL,
        version         bigint NOT NULL
      );
      -- Not unique: an import that hands a document number from one worker to another rewrites
      -- both rows in one statement, and ref_workers keeps the numbers unique.
      CREATE INDEX rm_workers_document ON rm_workers (document_number);
      CREATE INDEX rm_workers_version ON rm_workers (version);

      -- The rows of these workers (those that exist), computed from the reference tables.
      CREATE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_ends integer[], sheet_days integer[], sheet_pay bigint[])
        LANGUAGE sql STABLE AS $fn$
        WITH w AS (
          SELECT r.id, r.document_number, r.document_type, r.first_names, r.last_names
            FROM ref_workers r WHERE r.id IN (SELECT unnest(p_ids))
        ), k AS (
          SELECT c.worker_id,
                 jsonb_agg(jsonb_build_object(
                   'id', c.id, 'companyContractId', c.company_contract_id, 'subgerenciaId', c.subgerencia_id,
                   'startDate', c.start_date, 'endDate', c.end_date, 'settled', c.settled, 'additional', c.additional,
                   'baseSalary', c.base_salary, 'riskLevel', c.risk_level,
                   'company', CASE WHEN cc.id IS NULL THEN NULL ELSE jsonb_build_object(
                     'id', cc.id, 'name', cc.name,
                     'vacationParams', CASE WHEN cc.has_vacation_params THEN jsonb_build_object(
                       'annualDays', cc.annual_days, 'annualDaysHighRisk', cc.annual_days_high_risk,
                       'minEnjoyedDays', cc.min_enjoyed_days, 'advanceAllowed', cc.advance_allowed,
                       'maxAdvanceDays', cc.max_advance_days, 'maxPeopleOnVacation', cc.max_people_on_vacation) END) END
                 ) ORDER BY c.start_date NULLS FIRST, c.id) AS contracts
            FROM ref_contracts c
            JOIN w ON w.id = c.worker_id
            LEFT JOIN ref_company_contracts cc ON cc.id = c.company_contract_id
           GROUP BY c.worker_id
        ), ends AS (
          SELECT s.worker_id, s.period_end - DATE '1970-01-01' AS day,
                 sum(s.days_worked) FILTER (WHERE NOT c.additional AND c.start_date <= s.period_start AND s.period_end <= c.end_date) AS days,
                 sum(s.basic_compensation) AS pay
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
            LEFT JOIN ref_contracts c ON c.id = s.contract_id AND c.worker_id = s.worker_id
           GROUP BY s.worker_id, s.period_end
        ), p AS (
          SELECT ends.worker_id, array_agg(ends.day ORDER BY ends.day) AS sheet_ends,
                 array_agg(ends.days ORDER BY ends.day) AS sheet_days, array_agg(ends.pay ORDER BY ends.day) AS sheet_pay
            FROM ends GROUP BY ends.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}')
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;

      INSERT INTO rm_workers (worker_id, document_number, document_type, first_names, last_names, contracts, sheet_ends, sheet_days, sheet_pay, version)
      SELECT f.*, (SELECT version FROM ref_version WHERE id = 1)
        FROM vac_worker_rows((SELECT coalesce(array_agg(id), '{}') FROM ref_workers)) f;
    `,
  },
  {
    version: 20,
    name: 'reference rows checked by the import',
    sql: `
      -- Only the import writes the reference tables, and never deletes a row; before it writes, it
      -- checks every reference of the file against the file and the database in a few set-based
      -- queries, and refuses the file naming each bad row. The foreign keys checked them again
      -- one row at a time: three quarters of the database's work of loading payroll sheets.
      ALTER TABLE ref_payroll_sheets DROP CONSTRAINT IF EXISTS ref_payroll_sheets_contract_id_fkey;
      ALTER TABLE ref_payroll_sheets DROP CONSTRAINT IF EXISTS ref_payroll_sheets_worker_id_fkey;
      ALTER TABLE ref_contracts DROP CONSTRAINT IF EXISTS ref_contracts_worker_id_fkey;
      ALTER TABLE ref_contracts DROP CONSTRAINT IF EXISTS ref_contracts_subgerencia_id_fkey;
    `,
  },
  {
    version: 21,
    name: 'vacation law parameters of the reference data',
    sql: `
      -- 'half': at most half of each accrual period's days may be paid in money while the contract
      -- is in force (CST art. 189, Ley 1429 de 2010 art. 20). Null, as every company contract
      -- imported before, keeps no such limit.
      ALTER TABLE ref_company_contracts ADD COLUMN IF NOT EXISTS compensation_limit text CHECK (compensation_limit IN ('half'));
      -- Technical, specialised, trusted or managerial staff may accumulate four years of vacations
      -- instead of two (CST art. 190). Contracts imported before were not marked so.
      ALTER TABLE ref_contracts ADD COLUMN IF NOT EXISTS technical_or_trusted boolean NOT NULL DEFAULT false;

      -- The per-worker rows carry both, as the reference tables now do.
      CREATE OR REPLACE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_ends integer[], sheet_days integer[], sheet_pay bigint[])
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
        ), ends AS (
          SELECT s.worker_id, s.period_end - DATE '1970-01-01' AS day,
                 sum(s.days_worked) FILTER (WHERE NOT c.additional AND c.start_date <= s.period_start AND s.period_end <= c.end_date) AS days,
                 sum(s.basic_compensation) AS pay
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
            LEFT JOIN ref_contracts c ON c.id = s.contract_id AND c.worker_id = s.worker_id
           GROUP BY s.worker_id, s.period_end
        ), p AS (
          SELECT ends.worker_id, array_agg(ends.day ORDER BY ends.day) AS sheet_ends,
                 array_agg(ends.days ORDER BY ends.day) AS sheet_days, array_agg(ends.pay ORDER BY ends.day) AS sheet_pay
            FROM ends GROUP BY ends.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}')
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;

      UPDATE rm_workers r SET contracts = f.contracts
        FROM vac_worker_rows((SELECT coalesce(array_agg(worker_id), '{}') FROM rm_workers)) f
       WHERE f.worker_id = r.worker_id AND r.contracts IS DISTINCT FROM f.contracts;
    `,
  },
  {
    version: 23,
    name: 'payroll sheet starts in the per-worker read model',
    sql: `
      -- Beside each date on which sheets end, the first day of the counted sheets that end on it
      -- (null where none counts): the accrual periods place the days worked in the sheets' own
      -- calendar, so a month without a sheet (an unpaid leave) is no longer read as worked time.
      -- Rows written before hold none until filled below.
      ALTER TABLE rm_workers ADD COLUMN IF NOT EXISTS sheet_starts integer[];

      -- CREATE OR REPLACE cannot change a function's result columns: it is dropped and created
      -- again, the new column last.
      DROP FUNCTION IF EXISTS vac_worker_rows(bigint[]);
      CREATE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_ends integer[], sheet_days integer[], sheet_pay bigint[],
                       sheet_starts integer[])
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
        ), ends AS (
          SELECT s.worker_id, s.period_end - DATE '1970-01-01' AS day,
                 sum(s.days_worked) FILTER (WHERE NOT c.additional AND c.start_date <= s.period_start AND s.period_end <= c.end_date) AS days,
                 sum(s.basic_compensation) AS pay,
                 min(s.period_start - DATE '1970-01-01')
                   FILTER (WHERE NOT c.additional AND c.start_date <= s.period_start AND s.period_end <= c.end_date) AS start
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
            LEFT JOIN ref_contracts c ON c.id = s.contract_id AND c.worker_id = s.worker_id
           GROUP BY s.worker_id, s.period_end
        ), p AS (
          SELECT ends.worker_id, array_agg(ends.day ORDER BY ends.day) AS sheet_ends,
                 array_agg(ends.days ORDER BY ends.day) AS sheet_days, array_agg(ends.pay ORDER BY ends.day) AS sheet_pay,
                 array_agg(ends.start ORDER BY ends.day) AS sheet_starts
            FROM ends GROUP BY ends.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}'),
               coalesce(p.sheet_starts, '{}')
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;

      UPDATE rm_workers r SET sheet_starts = f.sheet_starts
        FROM vac_worker_rows((SELECT coalesce(array_agg(worker_id), '{}') FROM rm_workers)) f
       WHERE f.worker_id = r.worker_id;
    `,
  },
  {
    version: 25,
    name: 'payroll sheets handed to the ledger as paid, variable salary',
    sql: `
      -- A contract may pay a variable salary (CST art. 192 §2): its vacations are valued at the
      -- average of the year before. Contracts imported before did not say so.
      ALTER TABLE ref_contracts ADD COLUMN IF NOT EXISTS variable_salary boolean NOT NULL DEFAULT false;

      -- The per-worker rows carry every payroll sheet as paid, with the contract it names, instead
      -- of days already judged and summed by date: each contract accrues at its own rate, a
      -- settled one accrues nothing, and a sheet of 0 days is payroll run, all of which the ledger
      -- decides from the sheets.
      DROP FUNCTION IF EXISTS vac_worker_rows(bigint[]);
${vacWorkerRowsSql}
      ALTER TABLE rm_workers DROP COLUMN IF EXISTS sheet_starts, DROP COLUMN IF EXISTS sheet_ends,
        DROP COLUMN IF EXISTS sheet_days, DROP COLUMN IF EXISTS sheet_pay;
      ALTER TABLE rm_workers ADD COLUMN sheet_contracts bigint[] NOT NULL DEFAULT '{}', ADD COLUMN sheet_starts integer[] NOT NULL DEFAULT '{}',
        ADD COLUMN sheet_ends integer[] NOT NULL DEFAULT '{}', ADD COLUMN sheet_days integer[] NOT NULL DEFAULT '{}',
        ADD COLUMN sheet_pay bigint[] NOT NULL DEFAULT '{}';
      UPDATE rm_workers r
         SET contracts = f.contracts, sheet_contracts = f.sheet_contracts, sheet_starts = f.sheet_starts,
             sheet_ends = f.sheet_ends, sheet_days = f.sheet_days, sheet_pay = f.sheet_pay
        FROM vac_worker_rows((SELECT coalesce(array_agg(worker_id), '{}') FROM rm_workers)) f
       WHERE f.worker_id = r.worker_id;
    `,
  },
];
