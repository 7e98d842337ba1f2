/**
 * vac_worker_rows as the database runs it: the per-worker read model's rows (rm_workers) computed
 * from the reference tables, for the workers asked. refreshWorkerFiles (worker-files.ts) writes
 * rm_workers from it. Created by the latest migration that renders this text (migrations.ts). It hands
 * over the payroll sheets as they were paid, one entry a sheet: which of them count, and for what,
 * is the ledger's to say (src/domain/ledger.ts), never this function's.
 *
 * Editing this text edits an applied migration: to change the function, copy the text the baseline
 * renders into it as a literal, edit this file, and add a migration that creates the function
 * again from it (DROP and CREATE when its result columns change), under the next free version number.
 */
export const vacWorkerRowsSql = `      CREATE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_contracts bigint[], sheet_starts integer[], sheet_ends integer[],
                       sheet_days integer[], sheet_pay bigint[], sheet_leave jsonb)
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
                 array_agg(s.basic_compensation ORDER BY s.period_end, s.period_start, s.contract_id) AS sheet_pay,
                 CASE WHEN bool_or(s.sick_days + s.paid_leave_days + s.vacation_days + s.unpaid_leave_days + s.suspension_days > 0)
                   THEN jsonb_build_array(
                     array_agg(s.sick_days ORDER BY s.period_end, s.period_start, s.contract_id),
                     array_agg(s.paid_leave_days ORDER BY s.period_end, s.period_start, s.contract_id),
                     array_agg(s.vacation_days ORDER BY s.period_end, s.period_start, s.contract_id),
                     array_agg(s.unpaid_leave_days ORDER BY s.period_end, s.period_start, s.contract_id),
                     array_agg(s.suspension_days ORDER BY s.period_end, s.period_start, s.contract_id)) END AS sheet_leave
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
           GROUP BY s.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_contracts, '{}'), coalesce(p.sheet_starts, '{}'),
               coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}'), p.sheet_leave
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;
`;
