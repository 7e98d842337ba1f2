const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Fortnightly sheets of a contract for the months [from, to] (YYYY-MM), 15 days each. */
export function fortnights(workerId: number, contractId: number, from: string, to: string, pay: number) {
  const rows = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  while (`${y}-${pad(m)}` <= to) {
    for (const [a, b] of [
      [1, 15],
      [16, lastDay(y, m)],
    ] as const) {
      rows.push({
        asociadoId: workerId,
        contratoId: contractId,
        periodoInicio: `${y}-${pad(m)}-${pad(a)}`,
        periodoFin: `${y}-${pad(m)}-${pad(b)}`,
        diasLaborados: 15,
        compensacionBasica: pay,
      });
    }
    if (++m === 13) [y, m] = [y + 1, 1];
  }
  return rows;
}

const contract = (id: number, workerId: number, start: string | null, end: string | null, extra: Record<string, unknown> = {}) => ({
  id,
  asociadoId: workerId,
  contratoEmpresaId: 10,
  subgerenciaId: 'SG-TEC',
  fechaInicio: start,
  fechaFin: end,
  liquidado: false,
  esAdicional: false,
  salarioBase: 2_000_000,
  nivelRiesgo: 1,
  ...extra,
});

/**
 * Workers for the corners of the payroll rules the fixture does not reach, imported on top of it
 * (contracts of company contract 10, subgerencia SG-TEC).
 */
export const EXTRA = {
  asociados: [2001, 2002, 2003, 2004, 2005].map((id) => ({
    id,
    tipoDocumento: 'CC',
    numeroDocumento: `30${id}`,
    nombres: `Extra ${id}`,
    apellidos: 'Prueba',
  })),
  contratos: [
    // Sheets before the contract began and of an additional contract never count as worked; a
    // sheet of the month in course counts once it has ended, but never stands for the IBC.
    contract(20001, 2001, '2025-03-01', '2027-12-31', { salarioBase: 3_100_000 }),
    contract(20002, 2001, '2025-06-01', '2026-12-31', { esAdicional: true, salarioBase: 700_000 }),
    // A settled contract followed by a new one, and a main contract without dates whose sheets
    // cannot be placed in time.
    contract(20003, 2002, '2024-01-01', '2025-06-30', { liquidado: true, salarioBase: 1_800_000 }),
    contract(20004, 2002, '2025-07-01', '2027-06-30', { salarioBase: 2_400_000, nivelRiesgo: 5 }),
    contract(20005, 2002, null, null, { salarioBase: 9_900_000 }),
    // Two contracts starting the same day, no sheets: the IBC is a contract's salary.
    contract(20006, 2003, '2025-01-01', '2027-01-31', { salarioBase: 2_222_222 }),
    contract(20007, 2003, '2025-01-01', '2026-12-31', { salarioBase: 3_333_333 }),
    // Only a contract that starts in the future, and one with a start date but no end.
    contract(20008, 2004, '2027-03-01', '2028-02-28', { salarioBase: 1_500_000 }),
    contract(20009, 2005, '2026-02-01', null, { salarioBase: 1_600_000 }),
  ],
  nomina: [
    ...fortnights(2001, 20001, '2025-01', '2026-10', 1_550_000),
    {
      asociadoId: 2001,
      contratoId: 20001,
      periodoInicio: '2026-11-01',
      periodoFin: '2026-11-15',
      diasLaborados: 15,
      compensacionBasica: 1_600_000,
    },
    ...fortnights(2001, 20002, '2025-06', '2026-10', 350_000),
    ...fortnights(2002, 20003, '2024-01', '2025-06', 900_000),
    ...fortnights(2002, 20004, '2025-07', '2026-09', 1_200_000),
    ...fortnights(2002, 20005, '2026-01', '2026-10', 50_000),
    ...fortnights(2005, 20009, '2026-02', '2026-10', 800_000),
  ],
  vacaciones: [
    {
      codigoPila: 'VAC_1750000000001_00002001_00000001',
      asociadoId: 2001,
      fechaInicio: '2025-09-01',
      diasVacaciones: 8,
      laboraSabado: false,
      compensado: false,
      pagado: false,
      aprobado: true,
    },
    {
      codigoPila: 'VAC_1750000000002_00002002_00000002',
      asociadoId: 2002,
      fechaInicio: '2025-12-01',
      diasVacaciones: 7,
      laboraSabado: true,
      compensado: true,
      pagado: false,
      aprobado: false,
    },
  ],
};
