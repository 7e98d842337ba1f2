import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { companyContractOf, toDecimal2 } from '../../domain/index.ts';
import { refusalWords } from '../../app/refusals.ts';
import { VacationUseCases } from '../../app/vacations.ts';
import { BALANCE_PROBLEM_MESSAGES } from '../../app/rule-messages.ts';
import { vacationBalance, type BalanceProblem } from '../../projections/reports/balance.ts';
import type { VacationView } from '../../projections/index.ts';
import type { WorkerFileRow } from '../../reference/worker-files.ts';
import { days, html, inPanelDates, pesos, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { searchWorkers, subgerencias } from '../../reference/search.ts';
import { periodsSection, registerLinks, settlementSection } from './worker-law.ts';
import { panelCall } from '../call.ts';
import { fromTo, previewBlock, readVacationForm, vacationForm, type FormState } from './vacation-form.ts';
import { mayDelete } from '../../app/refusals.ts';
import { timeline } from './worker-timeline.ts';
import { planLineOf } from './plan.ts';
import { NOT_IN_UNITS } from '../roles.ts';

/** Workers a search lists at most. */
const SEARCH_LIMIT = 20;

const PROBLEM_TEXT = (p: BalanceProblem) =>
  p.kind === 'no_contracts'
    ? 'El trabajador no tiene contratos vigentes hoy: no acumula días.'
    : p.kind === 'no_params'
      ? `El contrato empresa ${p.company.name} no tiene parametrización de vacaciones.`
      : BALANCE_PROBLEM_MESSAGES[p.kind];

/** The records whose days not enjoyed a new record may book (CST art. 188), for the form's list. */
const continuable = (list: VacationView[]) => list.filter((v) => v.status === 'live' && v.interruptedOn && !v.compensated);

const MORE_HITS = 'Hay más trabajadores que coinciden: escriba más del documento o del nombre para acotar la búsqueda.';

async function contractsTable(ctx: PanelContext, file: WorkerFileRow | null): Promise<Html> {
  if (!file || file.contracts.length === 0) return html`<p>El trabajador no tiene contratos registrados.</p>`;
  const names = new Map((await subgerencias(ctx.deps.db)).map((s) => [s.id, s.name]));
  return html`<table>
  <caption>Contratos</caption>
  <thead><tr>
    <th scope="col">Contrato</th><th scope="col">Subgerencia</th><th scope="col">Contrato empresa</th><th scope="col">Desde</th>
    <th scope="col">Hasta</th><th scope="col">Estado</th><th scope="col" class="num">Salario base</th>
    <th scope="col" class="num">Riesgo</th>
  </tr></thead>
  <tbody>${file.contracts.map((c) => {
    const company = companyContractOf(file, c);
    return html`<tr><td>${c.id}${c.additional ? ' (adicional)' : ''}</td><td>${names.get(c.subgerenciaId) ?? c.subgerenciaId}</td>
      <td>${company?.name ?? '—'}</td><td>${c.startDate ? shortDate(c.startDate) : '—'}</td>
      <td>${c.endDate ? shortDate(c.endDate) : 'sin fecha'}</td><td>${c.settled ? 'liquidado' : 'vigente'}</td>
      <td class="num">${pesos(c.baseSalary)}</td><td class="num">${c.riskLevel ?? '—'}</td></tr>`;
  })}</tbody>
</table>`;
}

/** Trabajador: search, a worker's contracts, balance and vacations, and the form to book more. */
export function workerPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const useCases = new VacationUseCases(deps);

  app.get('/trabajador', async (req, reply) => {
    const q = String((req.query as Record<string, unknown>).q ?? '')
      .trim()
      .slice(0, 100);
    let results: Html = html``;
    if (q !== '') {
      const found = await searchWorkers(deps.db, q, SEARCH_LIMIT);
      // A jefe finds only the workers of their subgerencias.
      const seen = await Promise.all(found.hits.map((w) => ctx.seesWorker(req, w.documentNumber)));
      const hits = found.hits.filter((_, i) => seen[i]);
      const more = found.more;
      const caption = more ? `Los primeros ${hits.length} resultados` : `${hits.length} resultado${hits.length === 1 ? '' : 's'}`;
      // A whole document typed: straight to that worker.
      if (hits[0]?.documentNumber === q) return reply.redirect(url`/panel/trabajador/${q}`, 303);
      results =
        hits.length === 0
          ? html`<p role="status">Ningún trabajador tiene un documento ni un nombre que empiece así.</p>`
          : html`<table>
  <caption>${caption} para «${q}»</caption>
  <thead><tr><th scope="col">Documento</th><th scope="col">Nombre</th></tr></thead>
  <tbody>${hits.map(
    (w) => html`<tr>
    <td>${w.documentType} ${w.documentNumber}</td>
    <td><a href="${url`/panel/trabajador/${w.documentNumber}`}">${w.lastNames}, ${w.firstNames}</a></td>
  </tr>`,
  )}</tbody>
</table>
${more ? html`<p role="status">${MORE_HITS}</p>` : ''}`;
    }
    return ctx.render(req, reply, { title: 'Trabajador', section: 'trabajador', body: html`${searchForm(q)}${results}` });
  });

  app.get('/trabajador/:documento', async (req, reply) => renderWorker(req, reply, { values: {} }));

  async function renderWorker(req: FastifyRequest, reply: FastifyReply, form: FormState, status = 200) {
    const doc = (req.params as { documento: string }).documento;
    // The per-worker read model's row: the worker, contracts, company rules and payroll in one read.
    const file = doc.length <= 40 ? await deps.reference.workerFileByDocument(doc) : null;
    if (!file) {
      return ctx.render(req, reply, {
        title: 'Trabajador',
        section: 'trabajador',
        status: 404,
        flash: { kind: 'error', text: `No hay un trabajador con documento ${doc}.` },
        body: searchForm(doc),
      });
    }
    if (!(await ctx.seesWorker(req, doc))) return ctx.refuse(req, reply, NOT_IN_UNITS);
    const { worker } = file;
    return ctx.render(req, reply, {
      title: `${worker.firstNames} ${worker.lastNames}`,
      section: 'trabajador',
      status,
      body: await workerBody(req, reply, file, form),
    });
  }

  async function workerBody(req: FastifyRequest, reply: FastifyReply, file: WorkerFileRow, form: FormState): Promise<Html> {
    const { worker } = file;
    const user = req.panelUser!;
    const today = deps.today();
    const query = req.query as Record<string, unknown>;
    const [balance, list, contracts, periods, settlement] = await Promise.all([
      vacationBalance(file, today, () => deps.readSide.liveRecordsOf(worker.id)),
      deps.readSide.vacationsOfWorker(worker.id, { includeDeleted: true }),
      contractsTable(ctx, file),
      periodsSection(ctx, file, query),
      settlementSection(ctx, file, query),
    ]);
    const csrf = ctx.csrf(reply);
    const figures = balance.ok
      ? html`<div class="cards">
  <div class="card"><span class="value">${balance.balance.worked}</span> días laborados en nómina</div>
  <div class="card"><span class="value">${days(toDecimal2(balance.balance.accrued))}</span>
    días causados (${balance.balance.annualDays} por año)</div>
  <div class="card"><span class="value">${days(toDecimal2(balance.balance.taken))}</span> días tomados</div>
  <div class="card"><span class="value">${days(toDecimal2(balance.balance.available))}</span> días disponibles</div>
</div>`
      : html`<p class="flash flash-error">${PROBLEM_TEXT(balance.problem)}</p>`;
    return html`<p class="muted">${worker.documentType} ${worker.documentNumber} · al ${shortDate(today)} ·
  <a href="${url`/panel/auditoria?documento=${worker.documentNumber}`}">Auditoría del trabajador</a></p>
<h2>Saldo de vacaciones</h2>
${figures}
${contracts}
${registerLinks(worker.documentNumber)}
${periods}
${settlement}
${ctx.may(req, 'write') ? bookingSection(form, worker.documentNumber, csrf, balance, list, today) : ''}
<h2>Vacaciones</h2>
${timeline(list, { approve: ctx.may(req, 'approve'), write: ctx.may(req, 'write'), delete: mayDelete(user) }, worker.documentNumber, csrf, today)}`;
  }

  app.post('/trabajador/:documento/vacaciones', async (req, reply) => {
    const doc = (req.params as { documento: string }).documento;
    const body = planLineOf((req.body ?? {}) as Record<string, unknown>, doc);
    const user = req.panelUser!;
    const { values, parsed } = readVacationForm(body, doc, user);
    if (!parsed.ok) return renderWorker(req, reply, { values, errors: parsed.errors }, 400);
    const { documentNumber, request } = parsed.value;
    if (body.accion !== 'registrar') {
      const r = await useCases.calculate(documentNumber, request);
      if (!r.ok) {
        const w = refusalWords(r, 'calculate', { documentNumber });
        return renderWorker(req, reply, { values, errors: w.text }, w.status);
      }
      return renderWorker(req, reply, { values, preview: r.value });
    }
    const r = await useCases.create(panelCall(req, user), documentNumber, request);
    if (!r.ok) {
      const w = refusalWords(r, 'create', { documentNumber });
      return renderWorker(req, reply, { values, errors: w.text }, w.status);
    }
    const { record } = r.value;
    ctx.flash(req, {
      kind: 'ok',
      text: `Vacaciones registradas ${fromTo(record)}, pendientes de aprobación. Código ${record.codigoPila}.`,
    });
    return reply.redirect(url`/panel/trabajador/${doc}#${record.codigoPila}`, 303);
  });
}

function searchForm(q: string): Html {
  return html`<form method="get" action="/panel/trabajador" class="row" role="search" novalidate>
  <div class="field"><label for="q">Documento o nombre</label>
    <input id="q" name="q" type="search" value="${q}" required maxlength="100" aria-describedby="q-hint">
    <span class="hint" id="q-hint">El número de documento o su comienzo, o el comienzo de nombres o apellidos.</span></div>
  <div><button type="submit">Buscar</button></div>
</form>`;
}

/** Calculate and book: only for a role that changes data. */
function bookingSection(
  form: FormState,
  doc: string,
  csrf: string,
  balance: Awaited<ReturnType<typeof vacationBalance>>,
  list: VacationView[],
  today: string,
): Html {
  return html`<h2 id="form-title">Calcular y registrar vacaciones</h2>
${
  form.errors?.length
    ? html`<div class="flash flash-error" role="alert" id="errores">
        <p>No se pueden registrar estas vacaciones:</p><ul>${form.errors.map((e) => html`<li>${inPanelDates(e)}</li>`)}</ul>
      </div>`
    : ''
}
${form.preview ? previewBlock(form.preview, today) : ''}
${
  !balance.ok && balance.problem.kind === 'no_contracts'
    ? html`<p>No se pueden registrar vacaciones: ningún contrato del trabajador está vigente hoy.</p>`
    : vacationForm(url`/panel/trabajador/${doc}/vacaciones`, csrf, form, continuable(list))
}`;
}
