import { vacationTerms } from './dataset.ts';

/**
 * Reference data the tests of the vacation-law features import beside the fixture: company
 * contract 30, whose rules limit the days paid in money to half of each period, and worker 1011
 * (document 1020307077, SG-TEC) holding contract 10011 under it from 2024-02-01, with fortnights
 * of 15 days through 2026-10-31. On the acceptance tests' today (2026-11-21) that makes two full
 * periods (earned 2025-01-31 and 2026-01-31) and a third of 270 days, 11.25 days accrued.
 */
/**
 * Worker 1012 (1020307084) has worked since 2021-01-01 under contract 10012 (company contract 10,
 * SG-ADM) and taken nothing: five full periods pending on 2026-11-21, the first prescribed on
 * 2025-12-31 and the second prescribing on 2026-12-31. Worker 1013 (1020307091), trusted staff
 * since 2022-01-01 under contract 10013, holds four.
 */
export const LONG = { workerId: 1012, document: '1020307084', contractId: 10012, salary: 2_400_000 } as const;
export const TRUSTED = { workerId: 1013, document: '1020307091', contractId: 10013, salary: 6_000_000 } as const;

export const LIMITED = { workerId: 1011, document: '1020307077', contractId: 10011, companyContractId: 30, salary: 3_000_000 } as const;

const pad = (n: number) => String(n).padStart(2, '0');

export function fortnightSheets(workerId: number, contractId: number, from: string, through: string, salary: number) {
  const rows = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  while (`${y}-${pad(m)}` <= through.slice(0, 7)) {
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
    for (const [a, b] of [
      [1, 15],
      [16, last],
    ] as const) {
      rows.push({
        asociadoId: workerId,
        contratoId: contractId,
        periodoInicio: `${y}-${pad(m)}-${pad(a)}`,
        periodoFin: `${y}-${pad(m)}-${pad(b)}`,
        diasLaborados: 15,
        compensacionBasica: salary / 2,
      });
    }
    if (++m === 13) [y, m] = [y + 1, 1];
  }
  return rows;
}

export function lawData() {
  return {
    contratosEmpresa: [
      {
        id: LIMITED.companyContractId,
        nombre: 'Contrato cliente C con límite de compensación',
        vacaciones: vacationTerms({ limiteCompensacion: 'mitad' }),
      },
    ],
    asociados: [
      { id: LIMITED.workerId, tipoDocumento: 'CC', numeroDocumento: LIMITED.document, nombres: 'Valentina', apellidos: 'Mora' },
      { id: LONG.workerId, tipoDocumento: 'CC', numeroDocumento: LONG.document, nombres: 'Hernando', apellidos: 'Pérez' },
      { id: TRUSTED.workerId, tipoDocumento: 'CE', numeroDocumento: TRUSTED.document, nombres: 'Lucía', apellidos: 'Gómez' },
    ],
    contratos: [
      {
        id: LIMITED.contractId,
        asociadoId: LIMITED.workerId,
        contratoEmpresaId: LIMITED.companyContractId,
        subgerenciaId: 'SG-TEC',
        fechaInicio: '2024-02-01',
        fechaFin: '2027-12-31',
        liquidado: false,
        esAdicional: false,
        salarioBase: LIMITED.salary,
        nivelRiesgo: 1,
      },
      {
        id: LONG.contractId,
        asociadoId: LONG.workerId,
        contratoEmpresaId: 10,
        subgerenciaId: 'SG-ADM',
        fechaInicio: '2021-01-01',
        fechaFin: '2028-12-31',
        liquidado: false,
        esAdicional: false,
        salarioBase: LONG.salary,
        nivelRiesgo: 1,
      },
      {
        id: TRUSTED.contractId,
        asociadoId: TRUSTED.workerId,
        contratoEmpresaId: 10,
        subgerenciaId: 'SG-ADM',
        fechaInicio: '2022-01-01',
        fechaFin: '2028-12-31',
        liquidado: false,
        esAdicional: false,
        salarioBase: TRUSTED.salary,
        nivelRiesgo: 1,
        cargoTecnicoODeConfianza: true,
      },
    ],
    nomina: [
      ...fortnightSheets(LIMITED.workerId, LIMITED.contractId, '2024-02-01', '2026-10-31', LIMITED.salary),
      ...fortnightSheets(LONG.workerId, LONG.contractId, '2021-01-01', '2026-10-31', LONG.salary),
      ...fortnightSheets(TRUSTED.workerId, TRUSTED.contractId, '2022-01-01', '2026-10-31', TRUSTED.salary),
    ],
  };
}
