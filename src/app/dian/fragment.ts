import { Readable } from 'node:stream';
import type { PaidVacation, WorkerPaidVacations } from '../../projections/reports/electronic-payroll.ts';

/**
 * The DIAN's individual electronic payroll document (Resolución 000013 de 2021, schema 1.0.6):
 * the `Vacaciones` element a payroll system places under `Devengados`, one a worker and month,
 * in XML and, for programs, the same attributes in JSON. The element's schema, as this service
 * writes it, is `vacaciones.xsd` beside this file.
 */
export const DIAN_NAMESPACE = 'dian:gov:co:facturaelectronica:NominaIndividual';

/** Pesos with the two decimals the schema's decimal is written with: 1423500 → "1423500.00". */
export const pago = (pesos: number): string => `${Math.trunc(pesos)}.00`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * A value inside a double-quoted attribute. Dates and numbers hold none of these characters;
 * the wrapper's document numbers come from the reference data and might. Characters XML 1.0
 * cannot hold at all are dropped.
 */
export const xmlAttr = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const attrs = (pairs: [string, string | number][]) => pairs.map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`).join('');

const comunesAttrs = (v: PaidVacation): [string, string | number][] => [
  ['FechaInicio', v.startDate],
  ['FechaFin', v.endDate],
  ['Cantidad', v.businessDays],
  ['Pago', pago(v.value)],
];
const compensadasAttrs = (v: PaidVacation): [string, string | number][] => [
  ['Cantidad', v.businessDays],
  ['Pago', pago(v.value)],
];

/** The worker's `Vacaciones` element of the month, in the DIAN namespace, ready for `Devengados`. */
export function vacacionesElement(w: WorkerPaidVacations, indent = ''): string {
  const lines = [
    ...w.enjoyed.map((v) => `${indent}  <VacacionesComunes${attrs(comunesAttrs(v))}/>`),
    ...w.compensated.map((v) => `${indent}  <VacacionesCompensadas${attrs(compensadasAttrs(v))}/>`),
  ];
  return `${indent}<Vacaciones xmlns="${DIAN_NAMESPACE}">\n${lines.join('\n')}\n${indent}</Vacaciones>`;
}

/** What the answer says it covers, in both formats. */
export interface FragmentHead {
  periodo: string;
  alCorte: string;
  alcance: { subgerenciaId: string | null; numeroDocumento: string | null };
}

/**
 * The month's fragments, one `Trabajador` a worker (who, by document) holding its `Vacaciones`,
 * streamed as the workers are read. The wrapper is this service's, in no namespace: a payroll
 * system takes each `Vacaciones` out of it.
 */
export function xmlFragments(head: FragmentHead, workers: AsyncIterable<WorkerPaidVacations>): Readable {
  async function* chunks() {
    const scope: [string, string][] = [];
    if (head.alcance.subgerenciaId !== null) scope.push(['subgerenciaId', head.alcance.subgerenciaId]);
    if (head.alcance.numeroDocumento !== null) scope.push(['numeroDocumento', head.alcance.numeroDocumento]);
    yield `<?xml version="1.0" encoding="UTF-8"?>\n<VacacionesNominaElectronica${attrs([['periodo', head.periodo], ['alCorte', head.alCorte], ...scope])}>\n`;
    for await (const w of workers) {
      const who = attrs([
        ['tipoDocumento', w.documentType],
        ['numeroDocumento', w.documentNumber],
      ]);
      yield `  <Trabajador${who}>\n${vacacionesElement(w, '    ')}\n  </Trabajador>\n`;
    }
    yield '</VacacionesNominaElectronica>\n';
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** A worker's fragment as JSON: the element's attributes under their own names, each with its record's code. */
export function fragmentBody(w: WorkerPaidVacations) {
  return {
    tipoDocumento: w.documentType,
    numeroDocumento: w.documentNumber,
    Vacaciones: {
      VacacionesComunes: w.enjoyed.map((v) => ({ ...Object.fromEntries(comunesAttrs(v)), codigoPila: v.codigoPila })),
      VacacionesCompensadas: w.compensated.map((v) => ({ ...Object.fromEntries(compensadasAttrs(v)), codigoPila: v.codigoPila })),
    },
  };
}

/** The month's fragments in the JSON envelope, streamed as the workers are read. */
export function jsonFragments(head: FragmentHead, workers: AsyncIterable<WorkerPaidVacations>): Readable {
  async function* chunks() {
    const open = JSON.stringify({
      success: true,
      statusCode: 200,
      message: 'Vacaciones del mes para la nómina electrónica DIAN',
      data: { ...head, espacioDeNombres: DIAN_NAMESPACE, trabajadores: [] },
    });
    // The envelope closes with `]}}`: the workers go just before it.
    yield open.slice(0, -3);
    let n = 0;
    for await (const w of workers) yield (n++ === 0 ? '' : ',') + JSON.stringify(fragmentBody(w));
    yield `],"totalTrabajadores":${n}}}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}
