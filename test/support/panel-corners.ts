import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fortnights } from './payroll-corners.ts';

/**
 * A worker the fixture lacks, for the panel's period warnings: hired on 1 February 2021 in
 * Administración with every fortnight paid and no vacation taken, so that on the fixture's today
 * (21 November 2026) five periods are earned and pending (CST art. 190 allows two) and the one
 * earned on 31 January 2023 prescribes on 31 January 2027 (art. 488), within 90 days.
 */
export const ROSA = { id: 3001, document: '3003001', name: 'Rosa Elena Vargas Ortiz' };

export const PANEL_EXTRA = {
  asociados: [{ id: ROSA.id, tipoDocumento: 'CC', numeroDocumento: ROSA.document, nombres: 'Rosa Elena', apellidos: 'Vargas Ortiz' }],
  contratos: [
    {
      id: 30001,
      asociadoId: ROSA.id,
      contratoEmpresaId: 10,
      subgerenciaId: 'SG-ADM',
      fechaInicio: '2021-02-01',
      fechaFin: '2027-12-31',
      liquidado: false,
      esAdicional: false,
      salarioBase: 2_400_000,
      nivelRiesgo: 1,
    },
  ],
  nomina: fortnights(ROSA.id, 30001, '2021-02', '2026-10', 1_200_000),
};

/**
 * A worker who moved between subgerencias: Operaciones from 2021 to 2023 (that contract settled),
 * Tecnología since 2024 with every fortnight of both paid. Only the SG-TEC area head answers for
 * them now; the SG-OPS one's reach ended with the contract.
 */
export const MOVED = { id: 3002, document: '3003002', name: 'Tomás Andrés Rincón Pardo', settled: 30021, current: 30022 };

export const MOVED_EXTRA = {
  asociados: [{ id: MOVED.id, tipoDocumento: 'CC', numeroDocumento: MOVED.document, nombres: 'Tomás Andrés', apellidos: 'Rincón Pardo' }],
  contratos: [
    { subgerenciaId: 'SG-OPS', id: MOVED.settled, fechaInicio: '2021-01-01', fechaFin: '2023-12-31', liquidado: true },
    { subgerenciaId: 'SG-TEC', id: MOVED.current, fechaInicio: '2024-01-01', fechaFin: '2027-12-31', liquidado: false },
  ].map((c) => ({ ...c, asociadoId: MOVED.id, contratoEmpresaId: 10, esAdicional: false, salarioBase: 2_600_000, nivelRiesgo: 1 })),
  nomina: [
    ...fortnights(MOVED.id, MOVED.settled, '2021-01', '2023-12', 1_300_000),
    ...fortnights(MOVED.id, MOVED.current, '2024-01', '2026-10', 1_300_000),
  ],
};

/** Extra reference data (the panel's extra workers unless given) as a file `vacaciones import` reads. */
export function panelExtraFile(data: object = PANEL_EXTRA): string {
  const file = join(mkdtempSync(join(tmpdir(), 'vac-panel-extra-')), 'extra.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}
