import type { FastifyInstance } from 'fastify';
import { deadLetterCounts, listWebhooks } from '../../integration/webhooks/repository.ts';
import { allProjectors } from '../../projections/index.ts';
import { LAG_COUNT_CAP } from '../../projections/runtime/status.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { positionToString } from '../../app/ports.ts';
import { bogotaTime, count, html } from '../html.ts';
import type { PanelContext } from '../context.ts';

/** Every read model in the words of the people who read this page (the technical name is folded away). */
const labelOf = (name: string) => allProjectors.find((p) => p.name === name)?.label ?? name;
const STATE_LABELS: Record<string, string> = {
  running: 'en marcha',
  standby: 'en espera (otra instancia la aplica)',
  rebuilding: 'reconstruyéndose',
  stopped: 'detenida',
  idle: 'sin iniciar',
};

/** Events a read model has yet to apply; the count stops at LAG_COUNT_CAP. */
const pending = (lag: number) => (lag >= LAG_COUNT_CAP ? `${count(LAG_COUNT_CAP)} o más` : count(lag));

/** A position in the event log with its unit: the log's commit position, and the prepare position beside it. */
const positionText = (p: { commit: bigint; prepare: bigint }) =>
  p.commit === p.prepare ? `evento en la posición ${count(p.commit)}` : `posición ${count(p.commit)} (preparación ${count(p.prepare)})`;

/** Operación: the read models' checkpoints and lag, the last import, whether the stores answer. */
export function operationsPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/operacion', async (req, reply) => {
    const [projections, lastImport, health, webhooks, dead] = await Promise.all([
      deps.projectionStatus(),
      new ReferenceRepository(deps.db).lastImport(),
      deps.checkReady().then(
        () => null,
        (err: Error) => err.message.split('\n')[0]!,
      ),
      listWebhooks(deps.db),
      deadLetterCounts(deps.db),
    ]);
    const abandoned = new Map(dead.map((d) => [d.name, d.count]));
    const { changedAt } = lastImport;
    const head = projections[0]?.head;
    const body = html`
<h2>Salud</h2>
${
  health === null
    ? html`<p class="flash flash-ok">La base de datos y el almacén de eventos responden.</p>`
    : html`<p class="flash flash-error">El servicio no está listo: ${health}</p>`
}
<h2>Proyecciones</h2>
<p>Lo más reciente del registro de eventos: <strong>${head ? positionText(head) : 'sin eventos'}</strong>.</p>
<table>
  <caption>Estado de cada modelo de lectura</caption>
  <thead><tr>
    <th scope="col">Modelo de lectura</th><th scope="col">Estado</th><th scope="col">Aplicado hasta</th>
    <th scope="col" class="num">Eventos por aplicar</th>
  </tr></thead>
  <tbody>
  ${projections.map(
    (p) => html`<tr><th scope="row">${labelOf(p.name)}</th>
      <td>${STATE_LABELS[p.state] ?? p.state}</td><td>${positionText(p.checkpoint)}</td><td class="num">${pending(p.lag)} ${
        p.lag === 1 ? 'evento' : 'eventos'
      }</td></tr>`,
  )}
  </tbody>
</table>
<details><summary>Detalle técnico</summary>
<ul>${projections.map((p) => html`<li>${labelOf(p.name)}: <code>${p.name}</code>, punto de control <code>${positionToString(p.checkpoint)}</code></li>`)}</ul>
</details>
<h2>Webhooks</h2>
${
  webhooks.length === 0
    ? html`<p>No hay webhooks configurados (<code>vacaciones webhook add</code>).</p>`
    : html`<table>
  <caption>Entregas a los sistemas de nómina suscritos</caption>
  <thead><tr>
    <th scope="col">Webhook</th><th scope="col">Dirección</th><th scope="col" class="num">Eventos entregados</th>
    <th scope="col" class="num">Intentos fallidos seguidos</th><th scope="col" class="num">Eventos abandonados (sin entregar tras 24 h)</th>
  </tr></thead>
  <tbody>
  ${webhooks.map((w) => {
    const n = abandoned.get(w.name) ?? 0;
    return html`<tr><th scope="row">${w.name}</th><td>${new URL(w.url).host}</td><td class="num">${count(w.delivered)}</td>
      <td class="num">${count(w.failures)}</td><td class="num">${n > 0 ? html`<strong>${count(n)}</strong>` : '0'}</td></tr>`;
  })}
  </tbody>
</table>
<p class="muted">Los eventos abandonados se listan con <code>vacaciones webhook list</code> y se envían de nuevo con <code>vacaciones webhook replay</code>.</p>`
}
<h2>Última importación</h2>
${
  lastImport.version > 0
    ? html`<p>Versión ${lastImport.version} de los datos de referencia.${changedAt ? html` Cargada el ${bogotaTime(changedAt)}` : ''}</p>`
    : html`<p>Todavía no se han importado datos de referencia.</p>`
}
`;
    return ctx.render(req, reply, { title: 'Operación', section: 'operacion', body });
  });
}
