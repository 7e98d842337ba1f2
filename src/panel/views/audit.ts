import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { workerStream } from '../../events/streams.ts';
import { verifyWorker } from '../../integrity/worker.ts';
import { breakInSpanish } from '../../app/chain-break-messages.ts';
import type { AuditEntry, ClosureRow } from '../../projections/index.ts';
import type { Worker } from '../../reference/repository.ts';
import { CONTENT_TYPES } from '../../app/book-formats.ts';
import { auditForPeople } from './audit-export.ts';
import { positionToString } from '../../app/ports.ts';
import { bogotaTime, html, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import {
  OTHER_RECORDS,
  ACTION_LABEL,
  attachment,
  type Meta,
  describe,
  liveSummary,
  stateTable,
  through,
  actionSteps,
  workerSteps,
  type Step,
} from './audit-steps.ts';

/** Auditoría: a worker's history as the event streams tell it, stepped through, exported. */
export function auditPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;

  /** The worker the page asks about; none for a jefe asking about another subgerencia's worker. */
  async function workerOf(req: FastifyRequest): Promise<{ doc: string; worker: Worker | null }> {
    const doc = String((req.query as Record<string, unknown>).documento ?? '')
      .trim()
      .slice(0, 40);
    if (doc && !(await ctx.seesWorker(req, doc))) return { doc, worker: null };
    return { doc, worker: doc ? await deps.reference.workerByDocument(doc) : null };
  }

  app.get('/auditoria', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const { doc, worker } = await workerOf(req);
    const search = html`<form method="get" action="/panel/auditoria" class="row" role="search" novalidate>
  <div class="field"><label for="documento">Documento del trabajador</label>
    <input id="documento" name="documento" type="search" value="${doc}" required maxlength="40"></div>
  <div><button type="submit">Ver auditoría</button></div>
</form>`;
    if (!worker) {
      return ctx.render(req, reply, {
        title: 'Auditoría',
        section: 'auditoria',
        status: doc ? 404 : 200,
        flash: doc ? { kind: 'error', text: `No hay un trabajador con documento ${doc}.` } : null,
        body: html`${search}${closureItems(await deps.readSide.closures(), ctx.unitsOf(req))}`,
      });
    }
    const code = typeof q.codigo === 'string' && q.codigo.length <= 200 ? q.codigo : null;
    const [steps, others] = await Promise.all([
      deps.readSide.fresh(() => workerSteps(ctx, worker.id)),
      deps.readSide.auditOfWorker(worker.id, { limit: OTHER_RECORDS }) as Promise<AuditEntry[]>,
    ]);
    const actions = actionSteps(steps);
    const shown = code ? actions.filter((s) => s.codes.includes(code)) : actions;
    const asked = Number(q.paso);
    const current = shown.find((s) => s.n === asked) ?? shown.at(-1);
    const i = current ? shown.indexOf(current) : -1;
    const all = url`/panel/auditoria?documento=${worker.documentNumber}`;
    const base = all + (code ? url`&codigo=${code}` : '');
    const exportAs = (format: 'csv' | 'xlsx' | 'json') =>
      url`/panel/auditoria/exportar?documento=${worker.documentNumber}&formato=${format}`;
    const prev = i > 0 ? shown[i - 1] : undefined;
    const next = i >= 0 && i < shown.length - 1 ? shown[i + 1] : undefined;
    const meta = (s: Step) => s.stored.metadata as Meta;
    const stepLink = (s: Step) => base + url`&paso=${s.n}#estado-titulo`;
    const otherRecords = others.filter((e) => ACTION_LABEL[e.action]);

    const body = html`${search}
<p class="muted">${worker.firstNames} ${worker.lastNames} · ${worker.documentType} ${worker.documentNumber} ·
  <a href="${url`/panel/trabajador/${worker.documentNumber}`}">Ver trabajador</a></p>
${code ? html`<p>Solo los eventos del registro <code>${code}</code>. <a href="${all}">Ver todos</a></p>` : ''}
<p class="actions">
  <a class="button secondary" href="${exportAs('xlsx')}" download>Exportar Excel</a>
  <a class="button secondary" href="${exportAs('csv')}" download>Exportar CSV</a>
  <a class="button secondary" href="${exportAs('json')}" download>Exportar JSON</a>
  <a class="button" href="${url`/panel/auditoria/verificar?documento=${worker.documentNumber}`}">Verificar</a>
</p>
${
  current
    ? html`<section aria-labelledby="estado-titulo">
<h2 id="estado-titulo">Estado después del paso ${current.n} de ${actions.length}</h2>
<p>${bogotaTime(current.stored.recordedAt)}: ${describe(current.event, current.stored)},
  por ${meta(current).userEmail ?? '—'} (${through(meta(current))}).</p>
<nav class="pager" aria-label="Recorrer los eventos">
  ${
    prev
      ? html`<a href="${stepLink(prev)}" data-step="prev" rel="prev">← Paso anterior (${prev.n})</a>`
      : html`<span class="muted">Es el primer paso</span>`
  }
  ${
    next
      ? html`<a href="${stepLink(next)}" data-step="next" rel="next">Paso siguiente (${next.n}) →</a>`
      : html`<span class="muted">Es el último paso</span>`
  }
</nav>
${stateTable(current.state, code)}
</section>`
    : html`<p>El trabajador no tiene eventos de vacaciones.</p>`
}
<h2>Historia de ${worker.firstNames} ${worker.lastNames}</h2>
${
  shown.length
    ? html`<table>
  <caption>Cada paso de sus vacaciones, del primero al último</caption>
  <thead><tr>
    <th scope="col" class="num">Paso</th><th scope="col">Cuándo</th><th scope="col">Qué</th><th scope="col">Quién</th>
    <th scope="col">Por dónde</th>
  </tr></thead>
  <tbody>${shown.map(
    (s) => html`<tr${s === current ? html` aria-current="step"` : ''}>
      <td class="num"><a href="${stepLink(s)}" aria-label="Ver el estado después del paso ${s.n}">${s.n}</a></td>
      <td>${bogotaTime(s.stored.recordedAt)}</td><td>${describe(s.event, s.stored)}</td><td>${meta(s).userEmail ?? '—'}</td>
      <td>${through(meta(s))}</td></tr>`,
  )}</tbody>
</table>
<details><summary>Detalle técnico</summary>
<p>Flujo de eventos <code>${workerStream(worker.id)}</code>.</p>
<ul>${shown.map(
        (s) =>
          html`<li>Paso ${s.n}: ${s.parts.map(
            (part, i) => html`${i > 0 ? ', ' : ''}evento <code>${part.stored.type}</code> (revisión ${String(part.stored.revision)})`,
          )}; solicitud <code>${meta(s).requestId ?? '—'}</code></li>`,
      )}</ul>
</details>`
    : html`<p>Sin eventos${code ? ' de ese registro' : ''}.</p>`
}
<h2>Consultas y ediciones fallidas</h2>
${
  otherRecords.length
    ? html`<table>
  <caption>${
    otherRecords.length === 1
      ? `Un registro entre los últimos ${OTHER_RECORDS} de su auditoría`
      : `${otherRecords.length} registros entre los últimos ${OTHER_RECORDS} de su auditoría, del más reciente al más antiguo`
  }</caption>
  <thead><tr>
    <th scope="col">Cuándo</th><th scope="col">Qué</th><th scope="col">Quién</th><th scope="col">API key</th><th scope="col">Detalle</th>
  </tr></thead>
  <tbody>${otherRecords.map(
    (e) => html`<tr>
      <td>${bogotaTime(e.occurredAt)}</td><td>${ACTION_LABEL[e.action]}</td><td>${e.userEmail ?? '—'}</td><td>${e.apiKeyName ?? '—'}</td>
      <td><details><summary>Detalle técnico</summary><pre class="details">${JSON.stringify(e.details)}</pre></details></td></tr>`,
  )}</tbody>
</table>`
    : html`<p>Sin consultas ni ediciones fallidas registradas.</p>`
}`;
    return ctx.render(req, reply, { title: 'Auditoría', section: 'auditoria', body });
  });

  app.get('/auditoria/verificar', async (req, reply) => {
    const { doc, worker } = await workerOf(req);
    if (!worker) {
      return ctx.render(req, reply, {
        title: 'Verificación',
        section: 'auditoria',
        status: 404,
        flash: { kind: 'error', text: `No hay un trabajador con documento ${doc}.` },
        body: html`<p><a href="/panel/auditoria">Volver</a></p>`,
      });
    }
    const { streams, report } = await verifyWorker(deps.store, worker.id);
    const ok = report.breaks.length === 0;
    const broken = new Map(report.breaks.map((b) => [b.stream, b]));
    req.log.info(
      { action: 'VERIFICACION_AUDITORIA', documento: worker.documentNumber, ok, responsable: req.panelUser!.email },
      'hash chains verified from the panel',
    );
    return ctx.render(req, reply, {
      title: 'Verificación',
      section: 'auditoria',
      flash: ok
        ? { kind: 'ok', text: `Íntegro: las cadenas de hash de los ${report.events} eventos del trabajador coinciden con su contenido.` }
        : { kind: 'error', text: 'Alterado: la cadena de hash de al menos un flujo no coincide con lo guardado.' },
      body: html`<table>
  <caption>Cadenas de hash de ${worker.firstNames} ${worker.lastNames} (${worker.documentNumber}):
    sus vacaciones, sus registros de auditoría y sus códigos PILA</caption>
  <thead><tr><th scope="col">Flujo</th><th scope="col">Resultado</th></tr></thead>
  <tbody>${streams.map((s) => {
    const b = broken.get(s);
    const result = b ? html`<strong>rota en la revisión ${b.revision}</strong>: ${breakInSpanish(b)}` : 'íntegra';
    return html`<tr><td><code>${s}</code></td><td>${result}</td></tr>`;
  })}</tbody>
</table>
<p><a href="${url`/panel/auditoria?documento=${worker.documentNumber}`}">Volver a la auditoría</a></p>`,
    });
  });

  app.get('/auditoria/exportar', async (req: FastifyRequest, reply: FastifyReply) => {
    const { doc, worker } = await workerOf(req);
    const asked = (req.query as Record<string, unknown>).formato;
    const format = asked === 'csv' || asked === 'xlsx' ? asked : 'json';
    if (!worker) {
      return ctx.render(req, reply, {
        title: 'Auditoría',
        section: 'auditoria',
        status: 404,
        flash: { kind: 'error', text: `No hay un trabajador con documento ${doc}.` },
        body: html`<p><a href="/panel/auditoria">Volver</a></p>`,
      });
    }
    const steps = await deps.readSide.fresh(() => workerSteps(ctx, worker.id));
    const rows = steps.map((s) => {
      const m = s.stored.metadata as Meta & Record<string, unknown>;
      const live = liveSummary(s.state);
      return {
        paso: s.n,
        posicion: positionToString(s.stored.position),
        flujo: s.stored.stream,
        revision: s.stored.revision,
        tipo: s.stored.type,
        registradoEn: s.stored.recordedAt,
        descripcion: describe(s.event, s.stored),
        codigoPila: s.code,
        usuario: m.userEmail ?? null,
        apiKey: m.apiKeyName ?? null,
        origen: m.source ?? null,
        solicitud: m.requestId ?? null,
        datos: s.stored.data,
        metadatos: s.stored.metadata,
        estadoDespues: { registrosVigentes: live.records, diasTomados: live.businessDays, codigosVigentes: live.codes },
      };
    });
    const name = `auditoria-${worker.documentNumber}`;
    req.log.info(
      { action: 'EXPORTACION_AUDITORIA', documento: worker.documentNumber, formato: format, responsable: req.panelUser!.email },
      'audit exported from the panel',
    );
    if (format === 'json') {
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', attachment(`${name}.json`))
        .send(
          JSON.stringify(
            {
              trabajador: { id: worker.id, documento: worker.documentNumber, nombre: `${worker.firstNames} ${worker.lastNames}` },
              eventos: rows,
            },
            null,
            2,
          ),
        );
    }
    const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, 'the audit export stopped while being written');
    return reply
      .type(CONTENT_TYPES[format])
      .header('content-disposition', attachment(`${name}.${format}`))
      .send(auditForPeople(actionSteps(steps), format, failed));
  });
}

/** Each collective closure is one decision in the audit: who booked it, when, and what became of it. */
function closureItems(list: ClosureRow[], units: string[] | null): Html {
  const mine = list.filter((c) => units === null || c.subgerenciaIds.some((u) => units.includes(u)));
  if (mine.length === 0) return html``;
  return html`<h2>Vacaciones colectivas</h2>
<ul class="links">${mine.map(
    (c) =>
      html`<li><a href="${url`/panel/colectivas/${c.closureId}`}">Del ${shortDate(c.startDate)}, ${c.businessDays} días hábiles, ${
        c.workers.length
      } registros</a>: ${c.state}, programada el ${bogotaTime(c.scheduledAt)}</li>`,
  )}</ul>`;
}
