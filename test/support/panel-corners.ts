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

/** The extra workers as a file `vacaciones import` reads. */
export function panelExtraFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'vac-panel-extra-')), 'extra.json');
  writeFileSync(file, JSON.stringify(PANEL_EXTRA));
  return file;
}
