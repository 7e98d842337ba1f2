import type {
  Booked,
  ClosureCommands,
  ClosureFailure,
  ClosureLine,
  ClosurePreview,
  ClosureRequest,
  LeftOut,
} from '../commands/closures.ts';
import type { Actor } from '../commands/types.ts';
export type { ClosureRequest } from '../commands/closures.ts';
import { Days360, toDecimal2 } from '../domain/index.ts';
import type { RuleViolation } from '../commands/violations.ts';
import type { Position } from '../store/types.ts';
import { flagText } from './fields.ts';
import { noticesField } from './notices.ts';
import { figuresWire } from './record-wire.ts';
import { ruleMessage } from './rule-messages.ts';

/**
 * Collective closures as the API, the panel and the CLI show them: one wording of every line,
 * every worker left out and every refusal.
 */

/** Why a worker in scope is left out, in Spanish, from the reason and the fact the decision kept. */
export function exclusionText(e: Pick<LeftOut, 'reason' | 'detail'>): string {
  const [a, b, c] = e.detail.split('|');
  switch (e.reason) {
    case 'solapamiento':
      return `Ya tiene vacaciones disfrutadas del ${b} al ${c} (${a}) que se cruzan con la colectiva`;
    case 'finContrato':
      return `La colectiva terminaría el ${a}, después del fin de su contrato (${b})`;
    case 'sinContrato':
      return `No tiene un contrato vigente el ${a}`;
    case 'sinParametrizacion':
      return ruleMessage({ rule: a as 'noVacationParams' } as RuleViolation);
    case 'diaNoHabil':
      return `El ${a} no es un día hábil para el trabajador`;
  }
}

/** One worker's line of a closure, in the record's field names. */
export function closureLineBody(l: ClosureLine, names: Map<number, string>, record?: { codigoPila: string; recordId: number }) {
  const f = l.figures;
  return {
    ...(record ? { id: record.recordId, vacCodigoPila: record.codigoPila } : {}),
    ...figuresWire(f),
    vacPagado: flagText(f.advance),
    documentoAsociado: f.documentNumber,
    nombre: names.get(f.workerId) ?? '',
    subgerenciaId: f.subgerenciaId,
    DiasDisponibles: toDecimal2(Days360.fromUnits(f.availableUnits)),
    diasAnticipados: toDecimal2(Days360.fromUnits(l.advanceUnits)),
  };
}

export const exclusionBody = (e: LeftOut, names: Map<number, string>) => ({
  vacAsociado: e.workerId,
  documentoAsociado: e.documentNumber,
  nombre: names.get(e.workerId) ?? '',
  motivo: e.reason,
  mensaje: exclusionText(e),
});

/** The huella a booking hands back: what the preview saw. */
export const huellaOf = (seen: { head: Position; version: number }) => `${seen.head.commit}.${seen.head.prepare}.${seen.version}`;

/** The body of a preview or a booking: the closure, its lines, who is left out, the totals. */
export function closureBody(
  request: ClosureRequest,
  preview: Pick<ClosurePreview, 'lines' | 'excluded' | 'files'>,
  today: string,
  booked?: Booked,
) {
  const names = new Map([...preview.files].map(([id, f]) => [id, `${f.worker.firstNames} ${f.worker.lastNames}`.trim()]));
  const records = new Map(booked?.records.map((r) => [r.workerId, r]) ?? []);
  const lines = preview.lines.map((l) => closureLineBody(l, names, records.get(l.figures.workerId)));
  return {
    ...(booked ? { idColectiva: booked.closure.closureId } : {}),
    colectiva: {
      subgerencias: request.scope.subgerenciaIds,
      contratoEmpresaId: request.scope.companyContractId,
      fechaInicio: request.startDate,
      dias: request.days,
      laboraSabado: flagText(request.worksSaturday),
    },
    totales: {
      trabajadores: lines.length,
      excluidos: preview.excluded.length,
      anticipados: preview.lines.filter((l) => l.advanceUnits > 0).length,
      valorTotal: preview.lines.reduce((n, l) => n + l.figures.totalValue, 0),
    },
    trabajadores: lines,
    excluidos: preview.excluded.map((e) => exclusionBody(e, names)),
    ...noticesField(request.startDate, today),
  };
}

/** A closure's refusal: status, message and the errors keyed by the parameter at fault. */
export function closureRefusal(
  f: ClosureFailure,
  request?: ClosureRequest,
): { status: number; message: string; errors: Record<string, string> } {
  switch (f.kind) {
    case 'closure_rules':
      if (f.problem === 'notBusinessDay')
        return {
          status: 422,
          message: 'No se pueden programar las vacaciones colectivas',
          errors: { fechaInicio: `La fecha de inicio ${request?.startDate ?? ''} no es un día hábil` },
        };
      if (f.problem === 'belowMinimum')
        return {
          status: 422,
          message: 'No se pueden programar las vacaciones colectivas',
          errors: { dias: `Los días solicitados (${request?.days ?? ''}) no cumplen el mínimo de ${f.minimum} días disfrutados` },
        };
      if (f.problem === 'allLeftOut')
        return {
          status: 422,
          message: 'No se pueden programar las vacaciones colectivas',
          errors: { subgerenciaId: 'Todos los trabajadores del alcance quedan por fuera: la vista previa dice por qué' },
        };
      return {
        status: 422,
        message: 'No se pueden programar las vacaciones colectivas',
        errors: { subgerenciaId: `Ningún trabajador del alcance tiene contrato el ${request?.startDate ?? ''}` },
      };
    case 'out_of_scope':
      return {
        status: 403,
        message: 'No autorizado',
        errors: { subgerenciaId: 'La colectiva incluye trabajadores fuera de sus subgerencias' },
      };
    case 'unknown_scope':
      return f.companyContractId !== null
        ? {
            status: 404,
            message: 'No existe el contrato de empresa',
            errors: { contratoEmpresaId: `No hay un contrato de empresa ${f.companyContractId}` },
          }
        : {
            status: 404,
            message: 'No existe la subgerencia',
            errors: { subgerenciaId: `No hay subgerencia ${f.subgerencias.join(', ')}` },
          };
    case 'changed':
      return {
        status: 409,
        message: 'La situación de algunos trabajadores cambió desde la vista previa; no se reservó nada',
        errors: { trabajadores: `Cambiaron los trabajadores con documento ${f.workers.map((w) => w.documentNumber).join(', ')}` },
      };
    case 'closure_not_found':
      return { status: 404, message: 'No existe la colectiva', errors: { idColectiva: 'No hay una colectiva con ese identificador' } };
    case 'closure_started':
      return {
        status: 422,
        message: 'No se puede cancelar la colectiva',
        errors: { idColectiva: `La colectiva empezó el ${f.startDate}: solo se cancela antes de su inicio` },
      };
    case 'closure_cancelled':
      return { status: 422, message: 'La colectiva ya está cancelada', errors: { idColectiva: 'La colectiva fue cancelada' } };
    case 'busy':
      return {
        status: 503,
        message: 'Servicio ocupado, intente de nuevo',
        errors: { detalle: 'Demasiadas solicitudes a la vez sobre estos trabajadores' },
      };
  }
}

/** The closure use cases, the same for the API, the panel and the CLI: each command, then the read-your-writes note. */
export class ClosureUseCases {
  constructor(private readonly deps: { closures: ClosureCommands; readSide?: { noteWrite(p: Position): void } }) {}

  preview(request: ClosureRequest, actor: Actor) {
    return this.deps.closures.preview(request, actor);
  }

  async book(request: ClosureRequest, actor: Actor, seen?: { head: Position; version: number }) {
    const r = await this.deps.closures.book(request, actor, seen);
    if (r.ok) this.deps.readSide?.noteWrite(r.position);
    return r;
  }

  async approve(closureId: string, actor: Actor) {
    const r = await this.deps.closures.approve(closureId, actor);
    if (r.ok) this.deps.readSide?.noteWrite(r.position);
    return r;
  }

  async cancel(closureId: string, reason: string, actor: Actor) {
    const r = await this.deps.closures.cancel(closureId, reason, actor);
    if (r.ok) this.deps.readSide?.noteWrite(r.position);
    return r;
  }
}
