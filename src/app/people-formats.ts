import { BOOK_COLUMNS, type Cell } from './book-columns.ts';

/**
 * Tables for people rather than programs: what an HR analyst or a labour inspector opens in a
 * spreadsheet. Spanish headers; dates, money and days as numbers of their kind (real dates and
 * pesos in the XLSX; in the CSV, as Excel in Colombia reads them: `;` between fields, a decimal
 * comma, day/month/year); yes and no in words. The API keeps its own columns, which programs parse.
 */
export type Kind = 'text' | 'date' | 'money' | 'days' | 'int' | 'flag' | 'word';

export interface PeopleColumn {
  label: string;
  kind: Kind;
  /** In characters, as a spreadsheet counts a column's width. */
  width: number;
}

export interface PeopleLayout {
  columns: readonly PeopleColumn[];
}

/** A column for people; its width, in characters, by default that of its label. */
export const col = (label: string, kind: Kind, width = Math.max(10, label.length + 2)): PeopleColumn => ({ label, kind, width });

const BOOK_LABELS: Record<(typeof BOOK_COLUMNS)[number], PeopleColumn> = {
  registro: col('Línea', 'word', 12),
  asociadoId: col('Id trabajador', 'int'),
  tipoDocumento: col('Tipo de documento', 'text', 10),
  numeroDocumento: col('Documento', 'text', 14),
  nombres: col('Nombres', 'text', 22),
  apellidos: col('Apellidos', 'text', 22),
  fechaIngreso: col('Fecha de ingreso', 'date', 13),
  contratoId: col('Contrato', 'int'),
  periodo: col('Periodo', 'int', 9),
  periodoDesde: col('Periodo desde', 'date', 13),
  causadoEl: col('Causado el', 'date', 13),
  diasLaborados: col('Días laborados', 'days', 11),
  diasCausados: col('Días causados', 'days', 11),
  diasDisfrutados: col('Días disfrutados', 'days', 11),
  diasCompensados: col('Días compensados', 'days', 11),
  diasPendientes: col('Días pendientes', 'days', 11),
  exigibleDesde: col('Exigible desde', 'date', 13),
  prescribeEl: col('Prescribe el', 'date', 13),
  prescrito: col('Prescrito', 'flag', 10),
  art190SeisDias: col('Sin 6 días (art. 190)', 'flag', 12),
  vacCodigoPila: col('Código PILA', 'text', 38),
  subgerenciaId: col('Subgerencia', 'text', 14),
  vacFechaInicio: col('Inicio', 'date', 13),
  vacFechaFinal: col('Fin', 'date', 13),
  vacDiasVacaciones: col('Días hábiles', 'int', 9),
  vacDiasCalendario: col('Días calendario', 'int', 10),
  vacSalario: col('Salario', 'money', 14),
  vacValorTotal: col('Valor', 'money', 14),
  modalidad: col('Modalidad', 'word', 22),
  anticipadas: col('Anticipadas', 'flag', 11),
  estado: col('Estado', 'word', 13),
  fechaInterrupcion: col('Interrumpidas el', 'date', 13),
  motivoInterrupcion: col('Motivo de la interrupción', 'word', 22),
  continuaDe: col('Continúa las vacaciones', 'text', 38),
  contratoLiquidado: col('Contrato liquidado', 'flag', 10),
};

/** The register's columns (BOOK_COLUMNS, in the same order) as people read them. */
export const BOOK_FOR_PEOPLE: PeopleLayout = {
  columns: BOOK_COLUMNS.map((c) => BOOK_LABELS[c]),
};

/** Formats of the XLSX cells of each kind (Excel's codes: the thousands mark and decimal point follow the reader's locale). */
export const XLSX_FORMATS: Partial<Record<Kind, string>> = {
  date: 'dd/mm/yyyy',
  money: '"$" #,##0',
  days: '#,##0.00',
  int: '0',
};

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A cell as the XLSX holds it: dates as dates (midnight UTC, which Excel shows as that day), flags in words. */
export function xlsxCell(kind: Kind, v: Cell): Cell | Date {
  if (v === null) return null;
  if (kind === 'date' && typeof v === 'string') {
    const m = isoDate.exec(v);
    return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : v;
  }
  if (kind === 'flag') return v === '1' || v === 1 ? 'Sí' : v === '0' || v === 0 ? 'No' : v;
  if (kind === 'word' && typeof v === 'string') return v.charAt(0).toUpperCase() + v.slice(1);
  return v;
}

/** A cell as the CSV for people writes it: day/month/year, a decimal comma, whole pesos, words. */
export function csvCell(kind: Kind, v: Cell): Cell {
  if (v === null) return null;
  if (kind === 'date' && typeof v === 'string') {
    const m = isoDate.exec(v);
    return m ? `${m[3]}/${m[2]}/${m[1]}` : v;
  }
  if (kind === 'days' && typeof v === 'number') return v.toFixed(2).replace('.', ',');
  if (kind === 'money' && typeof v === 'number') return Math.round(v);
  const shown = xlsxCell(kind, v);
  return shown instanceof Date ? v : shown;
}
