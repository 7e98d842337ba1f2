import type { FastifyInstance } from 'fastify';
import { LAG_COUNT_CAP } from '../../projections/runtime/status.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { positionToString } from '../../store/types.ts';
import { bogotaTime, html } from '../html.ts';
import type { PanelContext } from '../index.ts';

/** Every read model in the words of the people who read this page (the technical name is folded away). */
export const PROJECTOR_LABELS: Record<string, string> = {
  vacations: 'Registros de vacaciones',
  amortizations: 'Amortizaciones',
  'contract-links': 'Vínculos con contratos',
  occupancy: 'Ocupación por subgerencia',
  audit: 'Auditoría',
  register: 'Libro de vacaciones',
  'worker-states': 'Vacaciones de cada trabajador para los cálculos',
};
const STATE_LABELS: Record<string, string> = {
  running: 'en marcha',
  standby: 'en espera (otra instancia la aplica)',
  rebuilding: 'reconstruyéndose',
  stopped: 'detenida',
  idle: 'sin iniciar',
};

const COUNT = new Intl.NumberFormat('es-CO');
/** Events a read model has yet to apply; the count stops at LAG_COUNT_CAP. */
const pending = (lag: number) => (lag >= LAG_COUNT_CAP ? `${COUNT.format(LAG_COUNT_CAP)} o más` : COUNT.format(lag));

/** A position in the event log with its unit: the log's commit position, and the prepare position beside it. */
const positionText = (p: { commit: bigint; prepare: bigint }) =>
  p.commit === p.prepare
    ? `evento en la posición ${COUNT.format(p.commit)}`
    : `posición ${COUNT.format(p.commit)} (preparación ${COUNT.format(p.prepare)})`;

/** Operación: the read models' checkpoints and lag, the last import, whether the stores answer. */
export function operationsPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/operacion', async (req, reply) => {
    const [projections, lastImport, health] = await Promise.all([
      deps.projectionStatus(),
      new ReferenceRepository(deps.db).lastImport(),
      deps.checkReady().then(
        () => null,
        (err: Error) => err.message.split('\n')[0]!,
      ),
    ]);
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
    (p) => html`<tr><th scope="row">${PROJECTOR_LABELS[p.name] ?? p.name}</th>
      <td>${STATE_LABELS[p.state] ?? p.state}</td><td>${positionText(p.checkpoint)}</td><td class="num">${pending(p.lag)} ${
        p.lag === 1 ? 'evento' : 'eventos'
      }</td></tr>`,
  )}
  </tbody>
</table>
<details><summary>Detalle técnico</summary>
<ul>${projections.map((p) => html`<li>${PROJECTOR_LABELS[p.name] ?? p.name}: <code>${p.name}</code>, punto de control <code>${positionToString(p.checkpoint)}</code></li>`)}</ul>
</details>
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
