import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refusalWords, type Refusal, type UseCase } from '../../app/refusals.ts';
import { VacationUseCases } from '../../app/vacations.ts';
import { Fields } from '../../app/fields.ts';
import { parseInterruptInput } from '../../app/vacation-input.ts';
import type { InterruptionReason } from '../../events/types.ts';
import type { VacationView } from '../../projections/index.ts';
import { dateField, fromDayMonthYear, html, shortDate, url } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { panelCall } from '../call.ts';
import { fromTo } from './vacation-form.ts';
import { mayDelete } from '../../app/refusals.ts';

/** Reasons an interruption may give (CST art. 188), as the interface names them, with their labels. */
const INTERRUPTION_LABELS: Record<InterruptionReason, string> = {
  incapacidad: 'Incapacidad',
  licencia: 'Licencia',
  calamidad: 'Calamidad doméstica',
  'necesidad del servicio': 'Necesidad del servicio',
  otro: 'Otro',
};

/** Approve, interrupt and delete one record: the forms of the worker page and the home page post here. */
export function recordActionRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const useCases = new VacationUseCases(deps);

  /** The record a code names, and its worker's document, for the approve and delete forms. */
  async function recordOf(code: string): Promise<VacationView | null> {
    return code.length <= 200 && !code.includes('\u0000') ? await deps.readSide.vacationByCode(code) : null;
  }
  const backTo = (v: VacationView | null) => (v ? url`/panel/trabajador/${v.documentNumber}#${v.codigoPila}` : '/panel/trabajador');
  /** Where a form asked to go back to: a page of the panel's own (the home page approves too), else the record's worker. */
  const backFrom = (req: FastifyRequest, v: VacationView | null) => {
    const asked = ((req.body ?? {}) as Record<string, unknown>).volver;
    return typeof asked === 'string' && /^\/panel(\/[a-z]+)*\/?(\?[A-Za-z0-9=&%._-]*)?$/.test(asked) ? asked : backTo(v);
  };

  /** The page of a form whose record is gone or was never there. */
  const noLiveRecord = (req: FastifyRequest, reply: FastifyReply, title: string) =>
    ctx.render(req, reply, {
      title,
      section: 'trabajador',
      status: 404,
      flash: { kind: 'error', text: 'No existe un registro de vacaciones vigente con ese código.' },
      body: html`<p><a href="/panel/trabajador">Buscar un trabajador</a></p>`,
    });

  /**
   * A refusal as the person reads it: one for their scope as the page that refuses access (403),
   * any other as a message on the way back.
   */
  const refused = (req: FastifyRequest, reply: FastifyReply, f: Refusal, op: UseCase, code: string, back: string) => {
    const text = refusalWords(f, op, { code }).text.join(' ');
    if (f.kind === 'out_of_scope') return ctx.refuse(req, reply, text);
    ctx.flash(req, { kind: 'error', text });
    return reply.redirect(back, 303);
  };

  app.post('/vacaciones/:codigo/aprobar', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    // Where to go back to, and nothing else: the read model may not hold the record yet. Whether a
    // jefe reaches the record (their subgerencias only, however the form was made) is the
    // command's to judge, on the record's own stream.
    const back = backFrom(req, await recordOf(code));
    const r = await useCases.approve(panelCall(req, user), code);
    if (!r.ok) return refused(req, reply, r, 'approve', code, back);
    ctx.flash(req, { kind: 'ok', text: `Vacaciones ${code} aprobadas.` });
    return reply.redirect(back, 303);
  });

  // CST art. 188: the first day not enjoyed and the reason; the command judges the rest.
  app.get('/vacaciones/:codigo/interrumpir', async (req, reply) => {
    const record = await recordOf((req.params as { codigo: string }).codigo);
    if (!record || record.status !== 'live') return noLiveRecord(req, reply, 'Interrumpir vacaciones');
    return ctx.render(req, reply, {
      title: 'Interrumpir vacaciones',
      section: 'trabajador',
      body: html`<p>Interrumpir las vacaciones <code>${record.codigoPila}</code> ${fromTo(record)} (${record.businessDays} días hábiles)
  del trabajador con documento ${record.documentNumber}.</p>
<p>El registro conserva los días hábiles disfrutados antes de la fecha indicada; los demás vuelven al saldo del trabajador,
  que puede tomarlos después en un registro nuevo.</p>
<form method="post" action="${url`/panel/vacaciones/${record.codigoPila}/interrumpir`}" novalidate>
  <input type="hidden" name="_csrf" value="${ctx.csrf(reply)}">
  ${dateField({
    id: 'fechaInterrupcion',
    label: 'Primer día no disfrutado',
    value: deps.today(),
    hint: `Un día hábil ${fromTo(record)}, ambos incluidos: el primero si no disfrutó ninguno. Día, mes y año (07/12/2026).`,
  })}
  <div class="field"><label for="motivo">Motivo</label>
    <select id="motivo" name="motivo" required>${Object.entries(INTERRUPTION_LABELS).map(
      ([value, label]) => html`<option value="${value}">${label}</option>`,
    )}</select></div>
  <div class="actions">
    <button type="submit">Interrumpir</button>
    <a class="button secondary" href="${backTo(record)}">No, volver</a>
  </div>
</form>`,
    });
  });

  app.post('/vacaciones/:codigo/interrumpir', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = parseInterruptInput(
      new Fields({
        fechaInterrupcion: typeof body.fechaInterrupcion === 'string' ? fromDayMonthYear(body.fechaInterrupcion) : body.fechaInterrupcion,
        motivo: body.motivo,
        codigoPila: code,
        emailUserResponsable: user.email,
      }),
    );
    if (!parsed.ok) {
      ctx.flash(req, { kind: 'error', text: Object.values(parsed.errors).join(' ') });
      return reply.redirect(backTo(record), 303);
    }
    const { date, reason } = parsed.value;
    const r = await useCases.interrupt(panelCall(req, user), code, { date, reason });
    if (!r.ok) return refused(req, reply, r, 'interrupt', code, backTo(record));
    ctx.flash(req, {
      kind: 'ok',
      text: `Vacaciones ${code} interrumpidas el ${shortDate(date)}: ${r.value.record.daysReturned} días hábiles volvieron al saldo.`,
    });
    return reply.redirect(backTo(record), 303);
  });

  app.get('/vacaciones/:codigo/eliminar', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    if (!record || record.status !== 'live') return noLiveRecord(req, reply, 'Eliminar vacaciones');
    if (!mayDelete(user)) {
      return ctx.render(req, reply, {
        title: 'Eliminar vacaciones',
        section: 'trabajador',
        status: 403,
        flash: { kind: 'error', text: 'Su usuario no tiene el permiso para eliminar vacaciones.' },
        body: html`<p><a href="${backTo(record)}">Volver al trabajador</a></p>`,
      });
    }
    return ctx.render(req, reply, {
      title: 'Eliminar vacaciones',
      section: 'trabajador',
      body: html`<p>¿Eliminar las vacaciones <code>${record.codigoPila}</code> ${fromTo(record)} (${record.businessDays} días hábiles)
  del trabajador con documento ${record.documentNumber}?</p>
<p>La eliminación queda en la auditoría con su nombre y no se puede deshacer.</p>
<form method="post" action="${url`/panel/vacaciones/${record.codigoPila}/eliminar`}" class="actions">
  <input type="hidden" name="_csrf" value="${ctx.csrf(reply)}">
  <button type="submit" class="danger">Sí, eliminar</button>
  <a class="button secondary" href="${backTo(record)}">No, volver</a>
</form>`,
    });
  });

  app.post('/vacaciones/:codigo/eliminar', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    const r = await useCases.delete(panelCall(req, user), code);
    if (!r.ok) return refused(req, reply, r, 'delete', code, backTo(record));
    ctx.flash(req, { kind: 'ok', text: `Vacaciones ${code} eliminadas.` });
    return reply.redirect(backTo(record), 303);
  });
}
