import type { NoveltyLine, WorkerNovelties } from '../projections/reports/novelties.ts';
import type { NoveltyTotals } from '../projections/reports/novelty-queries.ts';
import type { Cell } from '../app/book-formats.ts';
import { modalidad, recordState } from '../app/record-wire.ts';

/**
 * The month's novelties as payroll reads them: JSON bodies, and the table of the CSV and XLSX
 * answers (one line per record, one per worker's total, one overall; CSV cells pass formulaSafe
 * in csvTable).
 */

/** The PILA novelty of vacations enjoyed and paid leave (Resolución 2388 de 2016): compensated days are no absence. */
export const PILA_NOVELTY = 'VAC-LR';

export function noveltyLineBody(l: NoveltyLine) {
  const r = l.record;
  return {
    codigoPila: r.codigoPila,
    contratoId: r.contractId,
    subgerenciaId: r.subgerenciaId,
    modalidad: modalidad(r.compensated),
    estado: recordState(r),
    aprobada: r.approved,
    vacFechaInicio: r.startDate,
    vacFechaFinal: r.endDate,
    vacValorTotal: r.totalValue,
    fechaDesde: l.from,
    fechaHasta: l.to,
    diasHabiles: l.part.diasHabiles,
    diasCalendario: l.part.diasCalendario,
    valor: l.part.valor,
    novedadPila: r.compensated ? null : { tipo: PILA_NOVELTY, inicio: l.from, fin: l.to },
    fechaInterrupcion: r.interruptedOn,
    motivoInterrupcion: r.interruptionReason,
    reemplazaA: l.replaces,
    continuaDe: r.continues,
  };
}

const totalsBody = (t: Omit<NoveltyTotals, 'workers'>) => ({
  novedades: t.lines,
  diasHabiles: t.businessDays,
  diasCalendario: t.calendarDays,
  valor: t.value,
});

export const monthTotalsBody = (t: NoveltyTotals) => ({ trabajadores: t.workers, ...totalsBody(t) });

const whoOf = (w: WorkerNovelties) => ({
  asociadoId: w.worker.id,
  tipoDocumento: w.worker.documentType,
  numeroDocumento: w.worker.documentNumber,
  nombres: w.worker.firstNames,
  apellidos: w.worker.lastNames,
});

export function noveltyWorkerBody(w: WorkerNovelties) {
  return { ...whoOf(w), novedades: w.lines.map(noveltyLineBody), totales: totalsBody(w.totals) };
}

/** The columns of the CSV and XLSX novelties, in order. */
export const NOVELTY_COLUMNS = [
  'registro',
  'periodo',
  'asociadoId',
  'tipoDocumento',
  'numeroDocumento',
  'nombres',
  'apellidos',
  'codigoPila',
  'contratoId',
  'subgerenciaId',
  'modalidad',
  'estado',
  'aprobada',
  'vacFechaInicio',
  'vacFechaFinal',
  'vacValorTotal',
  'fechaDesde',
  'fechaHasta',
  'diasHabiles',
  'diasCalendario',
  'valor',
  'novedadPila',
  'novedadInicio',
  'novedadFin',
  'fechaInterrupcion',
  'motivoInterrupcion',
  'reemplazaA',
  'continuaDe',
] as const;

type Line = Partial<Record<(typeof NOVELTY_COLUMNS)[number], Cell>>;

const row = (l: Line): Cell[] => NOVELTY_COLUMNS.map((c) => l[c] ?? null);

/** A worker's lines of the table: one `novedad` line per record, then the worker's `total trabajador`. */
export function noveltyLines(month: string, w: WorkerNovelties): Cell[][] {
  const who: Line = { periodo: month, ...whoOf(w) };
  const lines = w.lines.map((l) => {
    const { novedadPila, aprobada, ...rest } = noveltyLineBody(l);
    return row({
      registro: 'novedad',
      ...who,
      ...rest,
      aprobada: aprobada ? '1' : '0',
      novedadPila: novedadPila?.tipo,
      novedadInicio: novedadPila?.inicio,
      novedadFin: novedadPila?.fin,
    });
  });
  const t = totalsBody(w.totals);
  lines.push(row({ registro: 'total trabajador', ...who, diasHabiles: t.diasHabiles, diasCalendario: t.diasCalendario, valor: t.valor }));
  return lines;
}

/** The last line of the table: the whole month's totals. */
export function totalLine(month: string, t: NoveltyTotals): Cell[] {
  return row({ registro: 'total', periodo: month, diasHabiles: t.businessDays, diasCalendario: t.calendarDays, valor: t.value });
}
