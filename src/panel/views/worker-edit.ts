import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VacationView } from '../../projections/index.ts';
import { html, url } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { refusalWords } from '../../app/refusals.ts';
import { VacationUseCases } from '../../app/vacations.ts';
import { panelCall } from '../call.ts';
import { fromTo, readVacationForm, vacationForm, type FormState } from './vacation-form.ts';

/** Only a live record not yet approved nor interrupted may be edited (the command refuses the rest too). */
const editable = (v: VacationView | null): v is VacationView => v !== null && v.status === 'live' && !v.approved && !v.interruptedOn;

/** The form's values for a record as it stands. */
const valuesOf = (v: VacationView): Record<string, string> => ({
  vacFechaInicio: v.startDate,
  vacDiasVacaciones: String(v.businessDays),
  ...(v.advance ? { vacPagado: '1' } : {}),
  ...(v.worksSaturday ? { vacLaboraSabado: '1' } : {}),
  ...(v.compensated ? { vacCompensado: '1' } : {}),
  vacSeguridadEnNomina: v.socialSecurityInPayroll === null ? '' : v.socialSecurityInPayroll ? '1' : '0',
});

/**
 * Editar: a record not approved gets new dates or days through the edit command the JSON
 * interface uses, which replaces it with a new record (pending approval) under a new code.
 */
export function editPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const useCases = new VacationUseCases(deps);
  const recordOf = async (req: FastifyRequest) => {
    const code = (req.params as { codigo: string }).codigo;
    return code.length <= 200 && !code.includes('\u0000') ? await deps.readSide.vacationByCode(code) : null;
  };

  function render(req: FastifyRequest, reply: FastifyReply, record: VacationView, form: FormState, status = 200) {
    const back = url`/panel/trabajador/${record.documentNumber}#${record.codigoPila}`;
    return ctx.render(req, reply, {
      title: 'Editar vacaciones',
      section: 'trabajador',
      status,
      body: html`<p>Las vacaciones ${fromTo(record)} (${record.businessDays} días hábiles), pendientes de aprobación, del trabajador con
  documento ${record.documentNumber}. Al guardar, el registro se reemplaza por uno nuevo con un código PILA nuevo, también pendiente
  de aprobación; el anterior queda en la auditoría.</p>
<h2 id="form-title">Nuevas fechas y días</h2>
${
  form.errors?.length
    ? html`<div class="flash flash-error" role="alert" id="errores">
        <p>No se pueden guardar estos cambios:</p><ul>${form.errors.map((e) => html`<li>${e}</li>`)}</ul></div>`
    : ''
}
${vacationForm(url`/panel/vacaciones/${record.codigoPila}/editar`, ctx.csrf(reply), form, [], 'Guardar cambios')}
<p><a href="${back}">No, volver al trabajador</a></p>`,
    });
  }

  const notEditable = (req: FastifyRequest, reply: FastifyReply, record: VacationView | null) =>
    ctx.render(req, reply, {
      title: 'Editar vacaciones',
      section: 'trabajador',
      status: record ? 409 : 404,
      flash: {
        kind: 'error',
        text: record
          ? 'Solo se pueden editar las vacaciones vigentes que no están aprobadas ni interrumpidas.'
          : 'No existe un registro de vacaciones vigente con ese código.',
      },
      body: html`<p><a href="${record ? url`/panel/trabajador/${record.documentNumber}` : '/panel/trabajador'}">Volver</a></p>`,
    });

  app.get('/vacaciones/:codigo/editar', async (req, reply) => {
    const record = await recordOf(req);
    if (!editable(record)) return notEditable(req, reply, record);
    return render(req, reply, record, { values: valuesOf(record) });
  });

  app.post('/vacaciones/:codigo/editar', async (req, reply) => {
    const record = await recordOf(req);
    if (!editable(record)) return notEditable(req, reply, record);
    const user = req.panelUser!;
    const { values, parsed } = readVacationForm((req.body ?? {}) as Record<string, unknown>, record.documentNumber, user);
    if (!parsed.ok) return render(req, reply, record, { values, errors: parsed.errors }, 400);
    // An edit that threw is rethrown once recorded: the panel's error page answers it.
    const r = await useCases.edit(panelCall(req, user), record.codigoPila, record.documentNumber, parsed.value.request);
    if (!r.ok) {
      const w = refusalWords(r, 'edit', { code: record.codigoPila, documentNumber: record.documentNumber });
      return render(req, reply, record, { values, errors: w.text }, w.status);
    }
    const now = r.value.record;
    ctx.flash(req, {
      kind: 'ok',
      text: `Vacaciones editadas: ahora ${fromTo(now)}, pendientes de aprobación. Código nuevo ${now.codigoPila}.`,
    });
    return reply.redirect(url`/panel/trabajador/${record.documentNumber}#${now.codigoPila}`, 303);
  });
}
