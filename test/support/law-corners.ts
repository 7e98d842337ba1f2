/**
 * Workers of the vacation-law tests whose files hold one corner each, imported beside the fixture
 * and lawData() (test/support/law-data.ts). Payroll runs in fortnights of 15 days through
 * 2026-10-31 unless said; the acceptance tests' today is 2026-11-21.
 */
import { LIMITED, fortnightSheets } from './law-data.ts';

const worker = (id: number, document: string, nombres: string) => ({
  id,
  tipoDocumento: 'CC',
  numeroDocumento: document,
  nombres,
  apellidos: 'Ruiz',
});

const contract = (over: Record<string, unknown> & { id: number; asociadoId: number }) => ({
  contratoEmpresaId: 10,
  subgerenciaId: 'SG-ADM',
  fechaInicio: '2024-02-01',
  fechaFin: '2028-12-31',
  liquidado: false,
  esAdicional: false,
  salarioBase: 3_600_000,
  nivelRiesgo: 1,
  ...over,
});

/**
 * Worker 1021, under the company contract that limits money to half a period (30) since
 * 2024-02-01, had 10 of the 15 days of the first period paid in money by the system before (a
 * historic record): that period is over the limit already.
 */
export const OVER_HALF = { workerId: 1021, document: '1020307121', contractId: 10021, salary: 3_600_000 } as const;

/**
 * Worker 1022 worked under contract 10022 from 2022-01-01 to 2023-12-31, settled (its pending days
 * were paid then), enjoying 10 days from 2023-03-06; then under 10023 from 2024-01-01, enjoying 10
 * days from 2025-03-03.
 */
export const RESETTLED = { workerId: 1022, document: '1020307128', settled: 10022, current: 10023, salary: 3_600_000 } as const;

/**
 * Worker 1023, under contract 10024 since 2024-02-10 (6 days worked that fortnight), has no payroll
 * sheet for February 2025 (an unpaid leave): 351 days by 2025-01-31, so the first period's 360th
 * day is the 9th of the fortnight 2025-03-01..15, 2025-03-09, not a day inside the gap.
 */
export const GAP = { workerId: 1023, document: '1020307135', contractId: 10024, salary: 3_600_000 } as const;

/**
 * Worker 1024, under contract 10025 since 2026-01-01 with payroll through 2026-10-31: the
 * settlement projects the days after the last sheet from the contract.
 */
export const RECENT = { workerId: 1024, document: '1020307142', contractId: 10025, salary: 3_000_000 } as const;

export function lawCorners() {
  return {
    asociados: [
      worker(OVER_HALF.workerId, OVER_HALF.document, 'Ofelia'),
      worker(RESETTLED.workerId, RESETTLED.document, 'Rodrigo'),
      worker(GAP.workerId, GAP.document, 'Gabriel'),
      worker(RECENT.workerId, RECENT.document, 'Renata'),
    ],
    contratos: [
      contract({
        id: OVER_HALF.contractId,
        asociadoId: OVER_HALF.workerId,
        contratoEmpresaId: LIMITED.companyContractId,
        subgerenciaId: 'SG-TEC',
        fechaFin: '2027-12-31',
      }),
      contract({
        id: RESETTLED.settled,
        asociadoId: RESETTLED.workerId,
        fechaInicio: '2022-01-01',
        fechaFin: '2023-12-31',
        liquidado: true,
      }),
      contract({ id: RESETTLED.current, asociadoId: RESETTLED.workerId, fechaInicio: '2024-01-01' }),
      contract({ id: GAP.contractId, asociadoId: GAP.workerId, fechaInicio: '2024-02-10' }),
      contract({ id: RECENT.contractId, asociadoId: RECENT.workerId, fechaInicio: '2026-01-01', salarioBase: RECENT.salary }),
    ],
    nomina: [
      ...fortnightSheets(OVER_HALF.workerId, OVER_HALF.contractId, '2024-02-01', '2026-10-31', OVER_HALF.salary),
      ...fortnightSheets(RESETTLED.workerId, RESETTLED.settled, '2022-01-01', '2023-12-31', RESETTLED.salary),
      ...fortnightSheets(RESETTLED.workerId, RESETTLED.current, '2024-01-01', '2026-10-31', RESETTLED.salary),
      ...fortnightSheets(GAP.workerId, GAP.contractId, '2024-02-01', '2026-10-31', GAP.salary)
        .filter((s) => !s.periodoInicio.startsWith('2025-02'))
        .map((s) => (s.periodoInicio === '2024-02-01' ? { ...s, periodoInicio: '2024-02-10', diasLaborados: 6 } : s)),
      ...fortnightSheets(RECENT.workerId, RECENT.contractId, '2026-01-01', '2026-10-31', RECENT.salary),
    ],
    vacaciones: [
      historic('VAC_1740000000000_00000000_00001021', OVER_HALF.workerId, '2025-03-03', 10, true),
      historic('VAC_1677000000000_00000000_00001022', RESETTLED.workerId, '2023-03-06', 10, false),
      historic('VAC_1740000000000_00000000_00001022', RESETTLED.workerId, '2025-03-03', 10, false),
    ],
  };
}

function historic(codigoPila: string, asociadoId: number, fechaInicio: string, diasVacaciones: number, compensado: boolean) {
  return { codigoPila, asociadoId, fechaInicio, diasVacaciones, laboraSabado: false, compensado, pagado: false, aprobado: true };
}

/** The reference data of the vacation-law tests: the fixture's additions of lawData() and the corners above. */
export function lawDataWithCorners(base: Record<string, unknown[]>) {
  const corners: Record<string, unknown[]> = lawCorners();
  const merged: Record<string, unknown[]> = { ...base };
  for (const [key, rows] of Object.entries(corners)) merged[key] = [...(merged[key] ?? []), ...rows];
  return merged;
}

/**
 * Two subgerencias where one person at a time may be away (company contract 40): SG-LEY with
 * workers 1031 and 1032, SG-LEX with 1033 and 1034, each under a contract since 2024-02-01.
 */
export const ONE_AWAY = {
  companyContractId: 40,
  first: { workerId: 1031, document: '1020307211', contractId: 10031, subgerenciaId: 'SG-LEY' },
  second: { workerId: 1032, document: '1020307218', contractId: 10032, subgerenciaId: 'SG-LEY' },
  third: { workerId: 1033, document: '1020307225', contractId: 10033, subgerenciaId: 'SG-LEX' },
  fourth: { workerId: 1034, document: '1020307232', contractId: 10034, subgerenciaId: 'SG-LEX' },
} as const;

export function oneAwayData() {
  const people = [ONE_AWAY.first, ONE_AWAY.second, ONE_AWAY.third, ONE_AWAY.fourth];
  return {
    subgerencias: [
      { id: 'SG-LEY', nombre: 'Jurídica' },
      { id: 'SG-LEX', nombre: 'Cumplimiento' },
    ],
    contratosEmpresa: [
      {
        id: ONE_AWAY.companyContractId,
        nombre: 'Contrato cliente D, una persona a la vez',
        vacaciones: {
          diasVacacionesAnuales: 15,
          diasVacacionesAnualesAltoRiesgo: 30,
          diasMinimosDisfrutados: 6,
          vacacionesAnticipadas: false,
          diasVacacionesAnticipadas: 0,
          numeroPersonasVacaciones: 1,
        },
      },
    ],
    asociados: people.map((p, i) => worker(p.workerId, p.document, ['Alba', 'Bruno', 'Celia', 'Darío'][i]!)),
    contratos: people.map((p) =>
      contract({ id: p.contractId, asociadoId: p.workerId, contratoEmpresaId: ONE_AWAY.companyContractId, subgerenciaId: p.subgerenciaId }),
    ),
    nomina: people.flatMap((p) => fortnightSheets(p.workerId, p.contractId, '2024-02-01', '2026-10-31', 3_600_000)),
  };
}
