/**
 * A small reference model of a worker's vacation balance, written from the words of the business
 * rules alone (day by day, contract by contract), sharing no code with the ledger, and random
 * workers to hold the service's views against it (test/unit/domain/ledger-oracle.test.ts,
 * test/acceptance/balance-oracle.test.ts).
 */
import fc from 'fast-check';
import { payrollOf } from '../../src/domain/index.ts';
import type { JudgedVacation } from '../../src/events/worker-state.ts';
import type { RegisterEntry } from '../../src/projections/register/queries.ts';
import type { Contract } from '../../src/reference/repository.ts';
import type { WorkerFileRow } from '../../src/reference/worker-files.ts';

// ---- The model: plain dates and loops, as the rules are worded. ----

export const utc = (d: string) => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)));
export const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const nextDay = (d: string) => iso(utc(d) + 86_400_000);

/** Days worked from `from` to `to` on 30-day months, a day at a time: the 31st adds none, the last of February makes the month whole. */
export function thirtyDayMonths(from: string, to: string): number {
  let n = 0;
  for (let d = from; d <= to; d = nextDay(d)) {
    const day = Number(d.slice(8, 10));
    if (day === 31) continue;
    n += d.slice(5, 7) === '02' && nextDay(d).slice(5, 7) === '03' ? 30 - day + 1 : 1;
  }
  return n;
}

export interface ModelContract {
  id: number;
  start: string;
  end: string;
  settled: boolean;
  additional: boolean;
  risk: number | null;
}
export interface ModelSheet {
  contract: number;
  start: string;
  end: string;
  days: number;
  /** Days of the sheet not worked, by kind, when the sheet breaks them down. */
  leave?: { sick: number; paid: number; vacation: number; unpaid: number; suspension: number };
}

/** "Days that accrue on a sheet: worked + sick leave + paid leave + paid vacation; unpaid leave and suspension nothing." */
const accruing = (s: ModelSheet) => s.days + (s.leave ? s.leave.sick + s.leave.paid + s.leave.vacation : 0);
export interface ModelRecord {
  code: string;
  start: string;
  days: number;
  returned: number;
  compensated: boolean;
  deleted: boolean;
}
export interface ModelWorker {
  contracts: ModelContract[];
  sheets: ModelSheet[];
  records: ModelRecord[];
  annual: number;
  annualHighRisk: number;
}

/** "Each non-additional contract accrues at its own annual days"; a settled one accrues nothing. Result in 360ths. */
export function accrued(w: ModelWorker, date: string, extra: ModelSheet[] = []): number {
  let units = 0;
  for (const c of w.contracts) {
    if (c.additional || c.settled) continue;
    const annual = c.risk === null ? 0 : c.risk >= 4 ? w.annualHighRisk : w.annual;
    let worked = 0;
    for (const s of [...w.sheets, ...extra]) {
      if (s.contract === c.id && c.start <= s.start && s.end <= c.end && s.end <= date) worked += accruing(s);
    }
    units += worked * annual;
  }
  return units;
}

/** "Taken": live records less the days an interruption gave back, except those that started inside a settled contract. */
function taken(w: ModelWorker): number {
  let units = 0;
  for (const r of w.records) {
    if (r.deleted) continue;
    const underSettled = w.contracts.some((c) => c.settled && !c.additional && c.start <= r.start && r.start <= c.end);
    if (!underSettled) units += (r.days - r.returned) * 360;
  }
  return units;
}

export const modelAvailable = (w: ModelWorker, date: string) => accrued(w, date) - taken(w);

/** The valid contract that governs a date: not settled, inside its dates, a main one first, the latest start. */
export function governing(w: ModelWorker, date: string): ModelContract | undefined {
  const valid = w.contracts.filter((c) => !c.settled && c.start <= date && date <= c.end);
  valid.sort((a, b) => (a.additional !== b.additional ? (a.additional ? 1 : -1) : a.start < b.start ? 1 : a.start > b.start ? -1 : 0));
  return valid[0];
}

/** A settlement on `leaving`: the balance with the days after the governing contract's last sheet (0-day ones too) counted. */
export function modelSettlement(w: ModelWorker, leaving: string, g: ModelContract): number {
  let through: string | null = null;
  for (const s of w.sheets) if (s.contract === g.id && s.end <= leaving && (through === null || s.end > through)) through = s.end;
  const from = through === null ? g.start : nextDay(through);
  const days = g.additional ? 0 : thirtyDayMonths(from, leaving);
  const extra = days > 0 ? [{ contract: g.id, start: from, end: leaving, days }] : [];
  return accrued(w, leaving, extra) - taken(w);
}

// ---- Random workers. ----

export const day = (from: string, offset: number) => iso(utc(from) + offset * 86_400_000);

export const arbWorker: fc.Arbitrary<ModelWorker> = fc
  .record({
    mains: fc.array(
      fc.record({
        gap: fc.integer({ min: 0, max: 90 }),
        length: fc.integer({ min: 60, max: 900 }),
        settled: fc.boolean(),
        risk: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null, freq: 8 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    additional: fc.option(fc.record({ offset: fc.integer({ min: 0, max: 600 }), length: fc.integer({ min: 30, max: 600 }) }), {
      nil: null,
    }),
    annual: fc.integer({ min: 15, max: 20 }),
    annualHighRisk: fc.integer({ min: 25, max: 30 }),
    sheetSeeds: fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 80, maxLength: 80 }),
    records: fc.array(
      fc.record({
        offset: fc.integer({ min: 0, max: 2400 }),
        days: fc.integer({ min: 1, max: 20 }),
        returned: fc.integer({ min: 0, max: 19 }),
        compensated: fc.boolean(),
        deleted: fc.boolean(),
        interrupted: fc.boolean(),
      }),
      { maxLength: 6 },
    ),
  })
  .map((g) => {
    const contracts: ModelContract[] = [];
    let cursor = '2021-01-01';
    g.mains.forEach((m, i) => {
      const start = day(cursor, m.gap);
      const end = day(start, m.length);
      contracts.push({ id: i + 1, start, end, settled: m.settled && i < g.mains.length - 1, additional: false, risk: m.risk });
      cursor = nextDay(end);
    });
    if (g.additional) {
      const start = day('2021-01-01', g.additional.offset);
      contracts.push({ id: 9, start, end: day(start, g.additional.length), settled: false, additional: true, risk: 1 });
    }
    // Fortnights inside each contract; a seed drops one (a gap), pays 0 days (unpaid leave) or fewer.
    const sheets: ModelSheet[] = [];
    let seed = 0;
    for (const c of contracts) {
      for (let s = c.start; s <= c.end;) {
        const half = Number(s.slice(8, 10)) <= 15;
        const monthEnd = iso(Date.UTC(Number(s.slice(0, 4)), Number(s.slice(5, 7)), 0));
        let end = half ? `${s.slice(0, 8)}15` : monthEnd;
        if (end > c.end) end = c.end;
        const r = g.sheetSeeds[seed++ % g.sheetSeeds.length]!;
        const full = thirtyDayMonths(s, end);
        if (r >= 8 && r < 64) sheets.push({ contract: c.id, start: s, end, days: r < 16 ? 0 : r < 24 ? Math.min(full, r % 15) : full });
        else if (r >= 64) {
          // A fortnight partly on leave of one kind, the rest worked.
          const k = Math.min(full, 1 + (r % 6));
          const kind = (['sick', 'paid', 'vacation', 'unpaid', 'suspension'] as const)[r % 5]!;
          const leave = { sick: 0, paid: 0, vacation: 0, unpaid: 0, suspension: 0, [kind]: k };
          sheets.push({ contract: c.id, start: s, end, days: full - k, leave });
        }
        s = nextDay(end);
      }
      // Now and then a sheet of the contract dated before its start, which must count for nothing.
      if (g.sheetSeeds[c.id]! < 20) sheets.push({ contract: c.id, start: day(c.start, -20), end: day(c.start, -6), days: 15 });
    }
    const records: ModelRecord[] = g.records.map((r, i) => ({
      code: `VAC_${i + 1}`,
      start: day('2021-01-01', r.offset),
      days: r.days,
      returned: r.interrupted && !r.compensated ? Math.min(r.returned, r.days - 1) : 0,
      compensated: r.compensated,
      deleted: r.deleted,
    }));
    return { contracts, sheets, records, annual: g.annual, annualHighRisk: g.annualHighRisk };
  });

// ---- The service's views, fed the same worker. ----

/** The worker's file; `salary` gives each contract's base salary (one salary for all by default). */
export function fileOf(w: ModelWorker, salary: (contract: number) => number = () => 3_000_000): WorkerFileRow {
  const contracts: Contract[] = w.contracts.map((c) => ({
    id: c.id,
    workerId: 1,
    companyContractId: 10,
    subgerenciaId: 'SG',
    startDate: c.start,
    endDate: c.end,
    settled: c.settled,
    additional: c.additional,
    baseSalary: salary(c.id),
    riskLevel: c.risk,
    technicalOrTrusted: false,
    variableSalary: false,
  }));
  const vacationParams = {
    annualDays: w.annual,
    annualDaysHighRisk: w.annualHighRisk,
    minEnjoyedDays: 1,
    advanceAllowed: true,
    maxAdvanceDays: 400,
    maxPeopleOnVacation: null,
    compensationLimit: null,
  };
  return {
    worker: { id: 1, documentType: 'CC', documentNumber: '1', firstNames: 'A', lastNames: 'B' },
    contracts,
    companyContracts: new Map([[10, { id: 10, name: 'C', vacationParams }]]),
    payroll: payrollOf(
      w.sheets.map((s) => ({
        contractId: s.contract,
        periodStart: s.start,
        periodEnd: s.end,
        daysWorked: s.days,
        basicCompensation: 100_000,
        ...(s.leave && {
          leave: {
            sick: s.leave.sick,
            paidLeave: s.leave.paid,
            vacation: s.leave.vacation,
            unpaidLeave: s.leave.unpaid,
            suspension: s.leave.suspension,
          },
        }),
      })),
      contracts,
    ),
  };
}

const live = (w: ModelWorker) => w.records.filter((r) => !r.deleted);

export const judged = (w: ModelWorker): JudgedVacation[] =>
  live(w).map((r, i) => ({
    codigoPila: r.code,
    recordId: i + 1,
    startDate: r.start,
    endDate: r.start,
    businessDays: r.days - r.returned,
    compensated: r.compensated,
    deleted: false,
    continues: null,
    interruptedOn: r.returned > 0 ? r.start : null,
    daysReturned: r.returned,
  }));

export const entries = (w: ModelWorker): RegisterEntry[] =>
  judged(w).map((v) => ({
    codigoPila: v.codigoPila,
    recordId: v.recordId,
    workerId: 1,
    contractId: null,
    subgerenciaId: 'SG',
    startDate: v.startDate,
    endDate: v.endDate,
    businessDays: v.businessDays,
    calendarDays: v.businessDays,
    salary: 3_000_000,
    totalValue: 1,
    compensated: v.compensated,
    advance: false,
    approved: true,
    interruptedOn: v.interruptedOn,
    interruptionReason: null,
    continues: null,
    recordedOn: v.startDate,
  }));
