import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/commands/evaluate.ts';
import { ruleMessages } from '../../../src/app/rule-messages.ts';
import type { DomainEvent } from '../../../src/events/types.ts';
import { calendar, contract, fortnights, params, request, stateOf, unitOf, workerFile } from './builders.ts';

const created = (code: string, start: string, end: string, days: number, over: Record<string, unknown> = {}): DomainEvent => ({
  type: 'VacationCreated',
  data: {
    recordId: 1,
    codigoPila: code,
    workerId: 1001,
    documentNumber: '1020307007',
    contractId: 10001,
    companyContractId: 10,
    subgerenciaId: 'SG-OPS',
    startDate: start,
    endDate: end,
    businessDays: days,
    calendarDays: 1,
    salary: 2_847_000,
    totalValue: 1,
    advance: false,
    worksSaturday: false,
    compensated: false,
    socialSecurityInPayroll: null,
    amortizations: [],
    replaces: null,
    createdAt: '2026-01-01T00:00:00Z',
    ...over,
  } as never,
});

const run = (over: Parameters<typeof evaluate>[0] extends infer I ? Partial<I> : never = {}) =>
  evaluate({ request: request(), file: workerFile(), state: stateOf([]), calendar, ...over });

describe('evaluate: figures', () => {
  it.each([
    ['2026-01-05', 15, false, '2026-01-26', 22, 1_423_500],
    ['2026-01-05', 15, true, '2026-01-22', 18, 1_423_500],
    ['2026-03-16', 6, false, '2026-03-24', 9, 569_400],
    ['2025-04-14', 5, false, '2025-04-22', 9, 474_500],
    ['2025-12-15', 15, false, '2026-01-06', 23, 1_423_500],
    ['2026-03-30', 15, true, '2026-04-17', 19, 1_423_500],
    ['2026-07-06', 15, false, '2026-07-28', 23, 1_423_500],
    ['2026-12-21', 15, false, '2027-01-13', 24, 1_423_500],
  ])(
    'given salary 2,847,000, when %s + %i days (Saturdays %s), then it ends %s, %i calendar days, value %i',
    (start, days, sat, end, cal, value) => {
      const ev = evaluate({
        request: request({ startDate: start, days, worksSaturday: sat, advance: true, compensated: days < 6 }),
        file: workerFile({ params: params({ maxAdvanceDays: 30 }) }),
        state: stateOf([]),
        calendar,
      });
      expect(ev.ok).toBe(true);
      if (!ev.ok) return;
      expect(ev.figures.endDate).toBe(end);
      expect(ev.figures.calendarDays).toBe(cal);
      expect(ev.figures.totalValue).toBe(value);
      expect(ev.figures.amortizations.reduce((s, a) => s + a.valor, 0)).toBe(value);
    },
  );

  it('given 690 days worked by the start date at 15 days a year, then 28.75 days are accrued and available', () => {
    const ev = run();
    expect(ev.ok && ev.figures.accruedUnits / 360).toBe(28.75);
    expect(ev.ok && ev.figures.availableUnits / 360).toBe(28.75);
  });

  it('given risk level 4, then the high-risk annual days apply', () => {
    const ev = run({ file: workerFile({ contracts: [contract({ riskLevel: 4 })] }) });
    expect(ev.ok && ev.figures.accruedUnits / 360).toBe(57.5);
  });

  it('given live vacations of both kinds, then both count as taken and deleted ones do not', () => {
    const state = stateOf([
      created('A', '2025-06-09', '2025-06-20', 10),
      created('B', '2025-09-01', '2025-09-05', 5, { compensated: true }),
      created('C', '2025-10-01', '2025-10-08', 6),
      {
        type: 'VacationDeleted',
        data: {
          codigoPila: 'C',
          workerId: 1001,
          reason: 'delete',
          replacedBy: null,
          snapshot: {} as never,
          deletedByUserId: 1,
          deletedAt: 'x',
        },
      },
    ]);
    const ev = run({ state, request: request({ days: 10 }) });
    expect(ev.ok && ev.figures.availableUnits / 360).toBe(28.75 - 15);
  });
});

describe('evaluate: a worker with a main and an additional contract', () => {
  // Main contract 10001 paid from 2024-02, additional 10510 from 2025-01, both through 2026-10.
  const both = workerFile({
    contracts: [
      contract({ endDate: '2027-12-31' }),
      contract({ id: 10510, additional: true, startDate: '2025-01-01', endDate: '2026-12-31', baseSalary: 900_000 }),
    ],
    sheets: [...fortnights('2024-02-01', '2026-10-31'), ...fortnights('2025-01-01', '2026-10-31', 900_000, 10510)],
  });
  const on = (over: Parameters<typeof request>[0]) => run({ file: both, request: request({ startDate: '2026-11-23', ...over }) });

  it("given sheets of both contracts, when calculated, then only the main contract's 990 days accrue: 41.25", () => {
    const ev = on({ days: 6 });
    expect(ev.ok && ev.figures.accruedUnits / 360).toBe(41.25);
    expect(ev.ok && ev.figures.availableUnits / 360).toBe(41.25);
  });

  it('(a) given 45 days asked without advance, then the additional sheets do not make them available', () => {
    const ev = on({ days: 45 });
    expect(!ev.ok && ev.violations).toEqual([{ rule: 'notEnoughDays', requested: 45, available: 41.25 }]);
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual(['Los días solicitados (45) superan los días disponibles (41.25)']);
  });

  it('(c) given 48 days asked in advance, then 6.75 days in advance pass the maximum of 5', () => {
    const ev = on({ days: 48, advance: true });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Los días anticipados (6.75) superan el máximo de 5 días de vacaciones anticipadas',
    ]);
  });
});

describe('evaluate: business rules (every failing rule listed)', () => {
  it('(a) given fewer available days than requested without advance, then it fails with both figures', () => {
    const ev = run({ file: workerFile({ sheets: fortnights('2025-06-01', '2025-12-31') }), request: request({ days: 15 }) });
    expect(ev.ok).toBe(false);
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual(['Los días solicitados (15) superan los días disponibles (8.75)']);
  });

  it('(b) given 4 enjoyed days against a minimum of 6, then it fails naming both', () => {
    const ev = run({ request: request({ days: 4 }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual(['Los días solicitados (4) no cumplen el mínimo de 6 días disfrutados']);
  });

  it('(b) given 4 compensated days, then the minimum does not apply', () => {
    expect(run({ request: request({ days: 4, compensated: true }) }).ok).toBe(true);
  });

  it('(c) given an advance within the maximum, then it passes even past the available days', () => {
    const ev = run({ file: workerFile({ sheets: fortnights('2025-06-01', '2025-12-31') }), request: request({ days: 13, advance: true }) });
    expect(ev.ok).toBe(true); // 13 - 8.75 = 4.25 <= 5
  });

  it('(c) given an advance over the maximum, then it fails with the days in advance', () => {
    const ev = run({ file: workerFile({ sheets: fortnights('2025-06-01', '2025-12-31') }), request: request({ days: 15, advance: true }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Los días anticipados (6.25) superan el máximo de 5 días de vacaciones anticipadas',
    ]);
  });

  it('(c) given an already negative balance, then the days owed count in total', () => {
    const state = stateOf([created('A', '2025-06-09', '2025-06-30', 12)]);
    const ev = run({
      state,
      file: workerFile({ sheets: fortnights('2025-06-01', '2025-12-31') }),
      request: request({ days: 6, advance: true }),
    });
    // available 8.75 - 12 = -3.25; 6 more in advance = 9.25 owed > 5
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Los días anticipados (9.25) superan el máximo de 5 días de vacaciones anticipadas',
    ]);
  });

  it('(c) given a company contract without advance vacations, then an advance past the balance fails', () => {
    const ev = run({
      file: workerFile({ sheets: fortnights('2025-06-01', '2025-12-31'), params: params({ advanceAllowed: false }) }),
      request: request({ days: 10, advance: true }),
    });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Los días solicitados (10) superan los días disponibles (8.75) y el contrato empresa no permite vacaciones anticipadas',
    ]);
  });

  it('(d) given two other workers of the subgerencia already away that day, then it fails naming the day', () => {
    const occupancy = unitOf('SG-OPS', [
      { code: 'X', workerId: 2001, start: '2026-01-01', end: '2026-01-10' },
      { code: 'Y', workerId: 2002, start: '2026-01-09', end: '2026-01-20' },
    ]);
    const ev = run({ occupancy });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Se alcanzó el máximo de 2 personas de vacaciones al mismo tiempo en la subgerencia SG-OPS el 2026-01-09',
    ]);
  });

  it('(d) given two others away on days that never coincide, then there is room', () => {
    const occupancy = unitOf('SG-OPS', [
      { code: 'X', workerId: 2001, start: '2026-01-01', end: '2026-01-08' },
      { code: 'Y', workerId: 2002, start: '2026-01-09', end: '2026-01-20' },
    ]);
    expect(run({ occupancy }).ok).toBe(true);
  });

  it('(d) given no limit on the company contract, or a compensated vacation, then occupancy is not checked', () => {
    const occupancy = unitOf('SG-OPS', [
      { code: 'X', workerId: 2001, start: '2026-01-01', end: '2026-01-30' },
      { code: 'Y', workerId: 2002, start: '2026-01-01', end: '2026-01-30' },
    ]);
    expect(run({ occupancy, file: workerFile({ params: params({ maxPeopleOnVacation: null }) }) }).ok).toBe(true);
    expect(run({ occupancy, request: request({ compensated: true }) }).ok).toBe(true);
  });

  it('(e) given an enjoyed vacation of the same worker on overlapping dates, then it fails naming it', () => {
    const state = stateOf([created('VAC_1', '2026-01-20', '2026-01-30', 6)]);
    const ev = run({ state });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Las fechas se cruzan con otras vacaciones del trabajador (VAC_1, del 2026-01-20 al 2026-01-30)',
    ]);
  });

  it('(e) given the overlapping vacation is the one being replaced, or compensated, then there is no clash', () => {
    const state = stateOf([created('VAC_1', '2026-01-20', '2026-01-30', 6)]);
    expect(run({ state, replacing: 'VAC_1' }).ok).toBe(true);
    const comp = stateOf([created('VAC_2', '2026-01-20', '2026-01-30', 6, { compensated: true })]);
    expect(run({ state: comp }).ok).toBe(true);
  });

  it('(e) given no contract valid on the start date and an overlapping enjoyed vacation, then both are reported', () => {
    const state = stateOf([created('VAC_1', '2028-02-28', '2028-03-03', 5)]);
    const ev = run({ state, request: request({ startDate: '2028-03-01', days: 6 }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'El trabajador no tiene un contrato vigente en la fecha de inicio',
      'Las fechas se cruzan con otras vacaciones del trabajador (VAC_1, del 2028-02-28 al 2028-03-03)',
    ]);
    const compensated = run({ state, request: request({ startDate: '2028-03-01', days: 6, compensated: true }) });
    expect(!compensated.ok && ruleMessages(compensated.violations)).toEqual([
      'El trabajador no tiene un contrato vigente en la fecha de inicio',
    ]);
  });

  it('given no contract and a period running past the last date the calendar names, then the missing contract is reported', () => {
    const ev = run({ request: request({ startDate: '9999-12-31', days: 10 }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual(['El trabajador no tiene un contrato vigente en la fecha de inicio']);
  });

  it('given no contract valid on the start date, then it fails and still reports a non-business start', () => {
    const ev = run({ request: request({ startDate: '2028-01-01' }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'El trabajador no tiene un contrato vigente en la fecha de inicio',
      'La fecha de inicio 2028-01-01 no es un día hábil para el trabajador',
    ]);
  });

  it('given a settled contract, then it does not govern', () => {
    const ev = run({ file: workerFile({ contracts: [contract({ settled: true })] }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual(['El trabajador no tiene un contrato vigente en la fecha de inicio']);
  });

  it('given a start on a holiday, a Sunday, or a Saturday for a worker without Saturdays, then it fails', () => {
    for (const [startDate, worksSaturday] of [
      ['2026-01-12', false],
      ['2026-01-04', true],
      ['2026-01-10', false],
    ] as const) {
      const ev = run({ request: request({ startDate, worksSaturday }) });
      expect(!ev.ok && ruleMessages(ev.violations)).toEqual([`La fecha de inicio ${startDate} no es un día hábil para el trabajador`]);
    }
    expect(run({ request: request({ startDate: '2026-01-10', worksSaturday: true }) }).ok).toBe(true);
  });

  it('given no company contract, no parameters or no risk level, then each is reported', () => {
    const noCompany = run({ file: workerFile({ contracts: [contract({ companyContractId: null })] }) });
    expect(!noCompany.ok && ruleMessages(noCompany.violations)).toEqual(['El contrato no tiene asociado un contrato empresa válido.']);
    const noParams = run({ file: workerFile({ params: null }) });
    expect(!noParams.ok && ruleMessages(noParams.violations)).toEqual(['El contrato empresa no tiene parametrización de vacaciones']);
    const noRisk = run({ file: workerFile({ contracts: [contract({ riskLevel: null })] }) });
    expect(!noRisk.ok && ruleMessages(noRisk.violations)).toEqual(['No se encuentra configurado el nivel de riesgo del contrato.']);
  });

  it('given several rules broken at once, then every one is listed', () => {
    const state = stateOf([created('VAC_1', '2026-01-05', '2026-01-09', 5)]);
    const ev = run({ state, file: workerFile({ sheets: [] }), request: request({ days: 4 }) });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Los días solicitados (4) superan los días disponibles (-5)',
      'Los días solicitados (4) no cumplen el mínimo de 6 días disfrutados',
      'Las fechas se cruzan con otras vacaciones del trabajador (VAC_1, del 2026-01-05 al 2026-01-09)',
    ]);
  });
});

describe('evaluate: (g) at most half of what was accrued paid in money (limiteCompensacion "mitad")', () => {
  // Paid from 2024-02-01: by 2026-01-05, 23 months (690 days) accrued 28.75 days; half is 14.375.
  const limited = workerFile({ params: params({ compensationLimit: 'half' }) });
  const money = (days: number, startDate = '2026-01-05') => request({ compensated: true, days, startDate });
  const overHalf = (compensated: string, accrued: string) =>
    `Los días compensados en dinero (${compensated}) superarían la mitad de los días causados a la fecha de inicio (${accrued}): ` +
    'solo puede pagarse en dinero hasta la mitad de lo causado';

  it('given 28.75 days accrued, when 15 are asked in money, then it fails naming both figures', () => {
    const ev = run({ file: limited, request: money(15) });
    expect(!ev.ok && ev.violations).toEqual([{ rule: 'compensationOverHalf', compensated: 15, accrued: 28.75 }]);
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([overHalf('15', '28.75')]);
  });

  it('given 28.75 days accrued, when 14 are asked in money, then it passes', () => {
    expect(run({ file: limited, request: money(14) }).ok).toBe(true);
  });

  it('given 7.5 days earned (six months), when 7 are asked in money, then days not earned cannot be paid: only 3 pass', () => {
    const file = workerFile({ params: params({ compensationLimit: 'half' }), sheets: fortnights('2025-07-01', '2025-12-31') });
    const seven = run({ file, request: money(7) });
    expect(!seven.ok && ruleMessages(seven.violations)).toEqual([overHalf('7', '7.50')]);
    expect(run({ file, request: money(3) }).ok).toBe(true);
    expect(run({ file, request: money(4) }).ok).toBe(false);
  });

  it('given 5 days already paid in money, when 10 more are asked, then 15 pass half and it is listed with the other broken rules', () => {
    const state = stateOf([created('VAC_A', '2025-03-03', '2025-03-07', 5, { compensated: true })]);
    const ev = run({ file: limited, state, request: money(10, '2026-01-04') });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'La fecha de inicio 2026-01-04 no es un día hábil para el trabajador',
      overHalf('15', '28.75'),
    ]);
  });

  it('given days enjoyed, then they do not count against the limit', () => {
    const state = stateOf([created('VAC_A', '2025-03-03', '2025-03-12', 8)]);
    expect(run({ file: limited, state, request: money(14) }).ok).toBe(true);
  });

  it('given a company contract without the limit, or enjoyed days, then nothing changes', () => {
    expect(run({ request: money(20) }).ok).toBe(true);
    expect(run({ file: limited, request: request({ days: 20 }) }).ok).toBe(true);
  });

  it('given an edit of the compensated record itself, then its own days do not count against the limit', () => {
    const state = stateOf([created('VAC_A', '2025-03-03', '2025-03-20', 14, { compensated: true })]);
    expect(run({ file: limited, state, request: money(14), replacing: 'VAC_A' }).ok).toBe(true);
    expect(run({ file: limited, state, request: money(14) }).ok).toBe(false);
  });
});
