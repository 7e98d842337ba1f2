import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClosureUseCases, closureBody, closureRefusal, exclusionText, huellaOf, type ClosureRequest } from '../../app/closures.ts';
import { Fields } from '../../app/fields.ts';
import { parseClosureInput } from '../../app/vacation-input.ts';
import type { ClosureRow, ClosureState } from '../../projections/index.ts';
import { subgerencias } from '../../reference/search.ts';
import { bogotaTime, count, dateField, fromDayMonthYear, html, inPanelDates, pesos, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { panelCall } from '../call.ts';

/** Rows a preview or a closure's page lists at most; the closure itself covers everyone in scope. */
const SHOWN_ROWS = 200;

const STATE_LABEL: Record<ClosureState, string> = {
  programada: 'Programada',
  aprobada: 'Aprobada',
  cancelada: 'Cancelada',
};

interface FormValues {
  units: string[];
  company: string;
  start: string;
  days: string;
  saturday: boolean;
}

const asList = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');

function readForm(body: Record<string, unknown>): FormValues {
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');
  return {
    units: asList(body.subgerenciaId).filter((u) => u !== ''),
    company: text('contratoEmpresaId'),
    start: text('fechaInicio'),
    days: text('dias'),
    saturday: body.laboraSabado === '1',
  };
}

/** The form's values as the interface's fields: the same validation as the JSON interface's. */
const fieldsOf = (v: FormValues, email: string, huella?: string) =>
  new Fields({
    ...(v.units.length > 0 ? { subgerenciaId: v.units.join(',') } : {}),
    ...(v.company !== '' ? { contratoEmpresaId: v.company } : {}),
    fechaInicio: fromDayMonthYear(v.start),
    dias: v.days,
    laboraSabado: v.saturday ? '1' : '0',
    ...(huella ? { huella } : {}),
    emailUserResponsable: email,
  });

const FIELD_LABEL: Record<string, string> = {
  subgerenciaId: 'Subgerencias',
  contratoEmpresaId: 'Contrato de empresa',
  fechaInicio: 'Fecha de inicio',
  dias: 'Días hábiles',
  laboraSabado: 'Labora los sábados',
  trabajadores: 'Trabajadores',
  huella: 'Vista previa',
};
const problemsOf = (errors: Record<string, string> | string[]) =>
  (Array.isArray(errors) ? errors.map((e) => ['', e] as const) : Object.entries(errors)).map(
    ([k, v]) =>
      `${k ? `${FIELD_LABEL[k] ?? k}: ` : ''}${inPanelDates(v.replace(/\b(vac[A-Za-z]+|subgerenciaId|contratoEmpresaId)\b/g, (n) => FIELD_LABEL[n] ?? n))}`,
  );

type Body = ReturnType<typeof closureBody>;

const scopeText = (subgerencias: readonly string[], company: number | null) =>
  company !== null ? `Contrato de empresa ${company}` : `Subgerencias ${subgerencias.join(', ')}`;

/** Vacaciones colectivas: a closure of one or more subgerencias, previewed, booked at once, approved or cancelled together. */
export function closurePageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const useCases = new ClosureUseCases(deps);

  async function formPage(req: FastifyRequest, reply: FastifyReply, v: FormValues, extra: { problems?: string[]; preview?: Html } = {}) {
    const scope = ctx.unitsOf(req);
    const units = (await subgerencias(deps.db)).filter((u) => scope === null || scope.includes(u.id));
    const list = (await deps.readSide.closures()).filter((c) => scope === null || c.subgerenciaIds.some((u) => scope.includes(u)));
    const mayWrite = ctx.may(req, 'write');
    const form = html`<form method="post" action="/panel/colectivas" class="stack" aria-labelledby="form-title" novalidate>
  <input type="hidden" name="_csrf" value="${ctx.csrf(reply)}">
  <h2 id="form-title">Programar vacaciones colectivas</h2>
  <fieldset class="units"><legend>Subgerencias que cierran</legend>
    ${units.map(
      (u) =>
        html`<label class="check"><input type="checkbox" name="subgerenciaId" value="${u.id}"${v.units.includes(u.id) ? html` checked` : ''}> ${u.name} <span class="muted">(${u.id})</span></label>`,
    )}
  </fieldset>
  <div class="row">
    <div class="field"><label for="contratoEmpresaId">O todo un contrato de empresa</label>
      <input id="contratoEmpresaId" name="contratoEmpresaId" type="text" inputmode="numeric" maxlength="15" value="${v.company}"
        aria-describedby="contratoEmpresaId-hint">
      <span class="hint" id="contratoEmpresaId-hint">Su número; déjelo vacío si eligió subgerencias.</span></div>
    ${dateField({ id: 'fechaInicio', label: 'Fecha de inicio', value: v.start })}
    <div class="field"><label for="dias">Días hábiles</label>
      <input id="dias" name="dias" type="number" min="1" max="360" required value="${v.days}"></div>
  </div>
  <label class="check"><input type="checkbox" name="laboraSabado" value="1"${v.saturday ? html` checked` : ''}> Labora los sábados</label>
  <div class="actions"><button type="submit" name="accion" value="previa">Ver vista previa</button></div>
</form>`;
    return ctx.render(req, reply, {
      title: 'Vacaciones colectivas',
      section: 'colectivas',
      status: extra.problems?.length ? 400 : 200,
      flash: extra.problems?.length ? { kind: 'error', text: extra.problems.join(' ') } : null,
      body: html`<p>Cierre de una planta o subgerencia (CST art. 187): cada trabajador con contrato el día de inicio recibe un registro
  con los mismos días; quien no tiene los días los toma anticipados. Se reserva todo o nada.</p>
${extra.preview ?? ''}
${mayWrite ? form : html`<p class="muted">Su rol permite consultar las vacaciones colectivas, no programarlas.</p>`}
${closureList(list)}`,
    });
  }

  app.get('/colectivas', async (req, reply) => formPage(req, reply, { units: [], company: '', start: '', days: '15', saturday: false }));

  app.post('/colectivas', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const v = readForm(body);
    const user = req.panelUser!;
    const book = body.accion === 'reservar';
    const huella = typeof body.huella === 'string' && book ? body.huella : undefined;
    const parsed = parseClosureInput(fieldsOf(v, user.email, huella));
    if (!parsed.ok) return formPage(req, reply, v, { problems: problemsOf(parsed.errors) });
    const request: ClosureRequest = {
      scope: parsed.value.scope,
      startDate: parsed.value.startDate,
      days: parsed.value.days,
      worksSaturday: parsed.value.worksSaturday,
    };
    const call = panelCall(req, user);
    if (!book) {
      const r = await useCases.preview(request, call.actor);
      if (!r.ok) return formPage(req, reply, v, { problems: problemsOf(closureRefusal(r, request).errors) });
      const shown = closureBody(request, r.value, deps.today());
      return formPage(req, reply, v, { preview: previewBlock(shown, v, huellaOf(r.value.seen), ctx.csrf(reply)) });
    }
    const r = await useCases.book(request, call.actor, parsed.value.seen ?? undefined);
    if (!r.ok) return formPage(req, reply, v, { problems: problemsOf(closureRefusal(r, request).errors) });
    ctx.flash(req, {
      kind: 'ok',
      text: `Vacaciones colectivas ${r.value.closure.closureId} registradas: ${count(r.value.records.length)} trabajadores.`,
    });
    return reply.redirect(url`/panel/colectivas/${r.value.closure.closureId}`, 303);
  });

  app.get('/colectivas/:id', async (req, reply) => {
    const id = String((req.params as { id: string }).id).slice(0, 80);
    const closure = await deps.readSide.closureById(id);
    const scope = ctx.unitsOf(req);
    if (!closure || (scope !== null && !closure.subgerenciaIds.some((u) => scope.includes(u)))) {
      return ctx.render(req, reply, {
        title: 'Vacaciones colectivas',
        section: 'colectivas',
        status: 404,
        flash: { kind: 'error', text: `No hay vacaciones colectivas ${id}.` },
        body: html`<p><a href="/panel/colectivas">Ver todas las vacaciones colectivas</a></p>`,
      });
    }
    const names = await userNames(deps.db, [closure.scheduledBy, closure.approvedBy, closure.cancelledBy]);
    return ctx.render(req, reply, {
      title: `Vacaciones colectivas del ${shortDate(closure.startDate)}`,
      section: 'colectivas',
      body: closurePage(closure, names, deps.today(), ctx.may(req, 'write') ? ctx.csrf(reply) : null),
    });
  });

  // Not «…/aprobar»: approving a closure is an administrator's decision over every record at once.
  app.post('/colectivas/:id/decision', async (req, reply) => {
    const id = String((req.params as { id: string }).id).slice(0, 80);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const call = panelCall(req, req.panelUser!);
    const back = url`/panel/colectivas/${id}`;
    const reason = typeof body.motivo === 'string' ? body.motivo.trim().slice(0, 500) : '';
    if (body.accion === 'cancelar' && reason === '') {
      ctx.flash(req, { kind: 'error', text: 'Escriba el motivo de la cancelación.' });
      return reply.redirect(back, 303);
    }
    const r = body.accion === 'cancelar' ? await useCases.cancel(id, reason, call.actor) : await useCases.approve(id, call.actor);
    if (!r.ok) {
      ctx.flash(req, { kind: 'error', text: Object.values(closureRefusal(r).errors).map(inPanelDates).join(' ') });
      return reply.redirect(back, 303);
    }
    const what = body.accion === 'cancelar' ? 'canceladas: se eliminaron' : 'aprobadas: se aprobaron';
    ctx.flash(req, { kind: 'ok', text: `Vacaciones colectivas ${what} ${count(r.value.codes.length)} registros.` });
    return reply.redirect(back, 303);
  });
}

async function userNames(db: PanelContext['deps']['db'], ids: (number | null)[]): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((x): x is number => x !== null))];
  if (wanted.length === 0) return new Map();
  const r = await db.query<{ id: string; name: string }>('SELECT id, name FROM ref_users WHERE id = ANY($1::bigint[])', [wanted]);
  return new Map(r.rows.map((u) => [Number(u.id), u.name]));
}

function previewBlock(b: Body, v: FormValues, huella: string, csrf: string): Html {
  const shown = b.trabajadores.slice(0, SHOWN_ROWS);
  return html`<section aria-labelledby="preview-title" class="card" id="vista-previa">
  <h2 id="preview-title">Vista previa: ${scopeText(b.colectiva.subgerencias, b.colectiva.contratoEmpresaId)}, desde el ${shortDate(
    b.colectiva.fechaInicio,
  )}, ${b.colectiva.dias} días hábiles</h2>
  ${
    b.avisos?.length
      ? html`<div class="flash flash-warning" role="status" id="avisos"><p>Puede registrarlas, pero tenga en cuenta:</p><ul>${b.avisos.map(
          (n) => html`<li>${inPanelDates(n.mensaje)}.</li>`,
        )}</ul></div>`
      : ''
  }
  <dl class="facts">
    <dt>Trabajadores</dt><dd>${count(b.totales.trabajadores)}</dd>
    <dt>Con días anticipados</dt><dd>${count(b.totales.anticipados)}</dd>
    <dt>Quedan por fuera</dt><dd>${count(b.totales.excluidos)}</dd>
    <dt>Valor total</dt><dd>${pesos(b.totales.valorTotal)}</dd>
  </dl>
  <div class="scroll"><table>
    <caption>Trabajadores que salen${b.trabajadores.length > shown.length ? ` (los primeros ${count(shown.length)} de ${count(b.trabajadores.length)})` : ''}</caption>
    <thead><tr><th scope="col">Trabajador</th><th scope="col">Documento</th><th scope="col">Hasta</th>
      <th scope="col" class="num">Días calendario</th><th scope="col" class="num">Valor</th><th scope="col" class="num">Días anticipados</th></tr></thead>
    <tbody>${shown.map(
      (l) => html`<tr><td>${l.nombre}</td><td>${l.documentoAsociado}</td><td>${shortDate(l.vacFechaFinal)}</td>
      <td class="num">${l.vacDiasCalendario}</td><td class="num">${pesos(l.vacValorTotal)}</td><td class="num">${l.diasAnticipados}</td></tr>`,
    )}</tbody>
  </table></div>
  ${exclusionTable(b.excluidos.map((e) => ({ name: e.nombre, doc: e.documentoAsociado, text: e.mensaje })))}
  <form method="post" action="/panel/colectivas" class="actions">
    <input type="hidden" name="_csrf" value="${csrf}">
    ${v.units.map((u) => html`<input type="hidden" name="subgerenciaId" value="${u}">`)}
    <input type="hidden" name="contratoEmpresaId" value="${v.company}">
    <input type="hidden" name="fechaInicio" value="${v.start}">
    <input type="hidden" name="dias" value="${v.days}">
    <input type="hidden" name="laboraSabado" value="${v.saturday ? '1' : '0'}">
    <input type="hidden" name="huella" value="${huella}">
    <button type="submit" name="accion" value="reservar">Reservar para ${count(b.totales.trabajadores)} trabajadores</button>
  </form>
  <p class="hint">Nada se ha guardado todavía. Si algún trabajador cambia antes de reservar, no se reserva nada y se le dice quién.</p>
</section>`;
}

function exclusionTable(rows: { name?: string; doc: string; text: string }[]): Html {
  if (rows.length === 0) return html``;
  const shown = rows.slice(0, SHOWN_ROWS);
  const named = rows.some((r) => r.name);
  return html`<div class="scroll"><table>
    <caption>Quedan por fuera${rows.length > shown.length ? ` (los primeros ${count(shown.length)} de ${count(rows.length)})` : ''}</caption>
    <thead><tr>${named ? html`<th scope="col">Trabajador</th>` : ''}<th scope="col">Documento</th><th scope="col">Motivo</th></tr></thead>
    <tbody>${shown.map((e) => html`<tr>${named ? html`<td>${e.name}</td>` : ''}<td>${e.doc}</td><td>${inPanelDates(e.text)}</td></tr>`)}</tbody>
  </table></div>`;
}

function closureList(list: ClosureRow[]): Html {
  if (list.length === 0) return html`<h2>Programadas</h2><p class="muted">No hay vacaciones colectivas.</p>`;
  return html`<div class="scroll"><table>
  <caption>Vacaciones colectivas programadas, las más recientes primero</caption>
  <thead><tr><th scope="col">Inicio</th><th scope="col">Alcance</th><th scope="col" class="num">Días</th>
    <th scope="col" class="num">Trabajadores</th><th scope="col">Estado</th></tr></thead>
  <tbody>${list.map(
    (c) => html`<tr><td><a href="${url`/panel/colectivas/${c.closureId}`}">${shortDate(c.startDate)}</a></td>
    <td>${scopeText(c.subgerenciaIds, c.companyContractId)}</td><td class="num">${c.businessDays}</td>
    <td class="num">${count(c.workers.length)}</td><td>${STATE_LABEL[c.state]}</td></tr>`,
  )}</tbody>
</table></div>`;
}

/** One closure as the audit reads it: the decision, who made it and when, what became of it, and its records. */
function closurePage(c: ClosureRow, names: Map<number, string>, today: string, csrf: string | null): Html {
  const who = (id: number | null) => (id === null ? '' : (names.get(id) ?? `usuario ${id}`));
  const shown = c.workers.slice(0, SHOWN_ROWS);
  const open = c.state === 'programada';
  return html`<p><a href="/panel/colectivas">Todas las vacaciones colectivas</a></p>
<dl class="facts">
  <dt>Identificador</dt><dd><code>${c.closureId}</code></dd>
  <dt>Alcance</dt><dd>${scopeText(c.subgerenciaIds, c.companyContractId)}</dd>
  <dt>Desde</dt><dd>${shortDate(c.startDate)}, ${c.businessDays} días hábiles${c.worksSaturday ? ', sábados hábiles' : ''}</dd>
  <dt>Estado</dt><dd>${STATE_LABEL[c.state]}</dd>
  <dt>Programada</dt><dd>${bogotaTime(c.scheduledAt)} por ${who(c.scheduledBy)}</dd>
  ${c.approvedAt ? html`<dt>Aprobada</dt><dd>${bogotaTime(c.approvedAt)} por ${who(c.approvedBy)} (${count(c.approvedCodes.length)} registros)</dd>` : ''}
  ${
    c.cancelledAt
      ? html`<dt>Cancelada</dt><dd>${bogotaTime(c.cancelledAt)} por ${who(c.cancelledBy)}: «${c.cancelReason ?? ''}» (${count(
          c.cancelledCodes.length,
        )} registros eliminados)</dd>`
      : ''
  }
</dl>
${
  open && csrf
    ? html`<div class="row">
  <form method="post" action="${url`/panel/colectivas/${c.closureId}/decision`}" class="actions">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit" name="accion" value="aprobar">Aprobar los ${count(c.workers.length)} registros</button>
  </form>
  ${
    c.startDate > today
      ? html`<form method="post" action="${url`/panel/colectivas/${c.closureId}/decision`}" class="stack">
    <input type="hidden" name="_csrf" value="${csrf}">
    <div class="field"><label for="motivo">Motivo de la cancelación</label>
      <input id="motivo" name="motivo" type="text" maxlength="500" required></div>
    <div class="actions"><button type="submit" name="accion" value="cancelar" class="danger">Cancelar la colectiva</button></div>
  </form>`
      : ''
  }
</div>`
    : ''
}
<div class="scroll"><table>
  <caption>Registros${c.workers.length > shown.length ? ` (los primeros ${count(shown.length)} de ${count(c.workers.length)})` : ''}</caption>
  <thead><tr><th scope="col">Documento</th><th scope="col">Código PILA</th></tr></thead>
  <tbody>${shown.map(
    (w) => html`<tr><td><a href="${url`/panel/trabajador/${w.documentNumber}`}">${w.documentNumber}</a></td>
    <td><a href="${url`/panel/auditoria?documento=${w.documentNumber}&codigo=${w.codigoPila}`}"><code>${w.codigoPila}</code></a></td></tr>`,
  )}</tbody>
</table></div>
${exclusionTable(c.excluded.map((e) => ({ doc: e.documentNumber, text: exclusionText(e) })))}`;
}
