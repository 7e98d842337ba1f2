/**
 * Generated reference data in the import format: `workers` workers of one subgerencia under one
 * company contract, each with a main contract and fortnightly payroll from 2024-02 to 2026-10.
 * Used by the concurrency tests and the benchmarks.
 */
export interface DatasetOptions {
  workers: number;
  /** Max people on vacation at once in the subgerencia; null for no limit. */
  maxPeople: number | null;
  firstWorkerId?: number;
  subgerencias?: number;
  historicPerWorker?: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

function lastDay(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

export function documentOf(workerId: number): string {
  return `9${String(workerId).padStart(9, '0')}`;
}

export function generateDataset(opts: DatasetOptions) {
  const first = opts.firstWorkerId ?? 100_000;
  const subgerencias = Array.from({ length: opts.subgerencias ?? 1 }, (_, i) => ({ id: `SG-${i + 1}`, nombre: `Subgerencia ${i + 1}` }));
  const asociados = [];
  const contratos = [];
  const nomina = [];
  const vacaciones = [];
  for (let i = 0; i < opts.workers; i++) {
    const id = first + i;
    const salary = 1_500_000 + (i % 50) * 37_000;
    asociados.push({ id, tipoDocumento: 'CC', numeroDocumento: documentOf(id), nombres: `Nombre${i}`, apellidos: 'Generado' });
    contratos.push({
      id,
      asociadoId: id,
      contratoEmpresaId: 1,
      subgerenciaId: subgerencias[i % subgerencias.length]!.id,
      fechaInicio: '2024-02-01',
      fechaFin: '2027-12-31',
      liquidado: false,
      esAdicional: false,
      salarioBase: salary,
      nivelRiesgo: 1,
    });
    for (let y = 2024; y <= 2026; y++) {
      for (let m = 1; m <= 12; m++) {
        if ((y === 2024 && m < 2) || (y === 2026 && m > 10)) continue;
        const mm = `${y}-${pad(m)}`;
        nomina.push({
          asociadoId: id,
          contratoId: id,
          periodoInicio: `${mm}-01`,
          periodoFin: `${mm}-15`,
          diasLaborados: 15,
          compensacionBasica: Math.round(salary / 2),
        });
        nomina.push({
          asociadoId: id,
          contratoId: id,
          periodoInicio: `${mm}-16`,
          periodoFin: `${mm}-${lastDay(y, m)}`,
          diasLaborados: 15,
          compensacionBasica: Math.round(salary / 2),
        });
      }
    }
    for (let k = 0; k < (opts.historicPerWorker ?? 0); k++) {
      // Mondays of 2024 and 2025 that are not holidays, far enough apart not to overlap.
      const start = new Date(Date.UTC(2024, 3, 1 + 7 * (k * 3 + (i % 2))));
      vacaciones.push({
        codigoPila: `VAC_${1_700_000_000_000 + i * 100 + k}_${(i * 100 + k).toString(16).padStart(8, '0')}_00000000`,
        asociadoId: id,
        fechaInicio: start.toISOString().slice(0, 10),
        diasVacaciones: 1,
        laboraSabado: false,
        compensado: true,
        pagado: false,
        aprobado: k % 2 === 0,
      });
    }
  }
  return {
    subgerencias,
    contratosEmpresa: [
      {
        id: 1,
        nombre: 'Contrato generado',
        vacaciones: vacationTerms({ numeroPersonasVacaciones: opts.maxPeople }),
      },
    ],
    asociados,
    contratos,
    nomina,
    usuarios: [{ id: 1, email: 'admin@empresa.co', nombre: 'Administradora', administrador: true, permisos: ['vacaciones:eliminar'] }],
    vacaciones,
  };
}

/**
 * A company contract's vacation terms in the import format: 15 days a year (30 at high risk),
 * at least 6 enjoyed, up to 5 in advance, no limit of people unless given.
 */
export function vacationTerms(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    diasVacacionesAnuales: 15,
    diasVacacionesAnualesAltoRiesgo: 30,
    diasMinimosDisfrutados: 6,
    vacacionesAnticipadas: true,
    diasVacacionesAnticipadas: 5,
    numeroPersonasVacaciones: null,
    ...over,
  };
}
