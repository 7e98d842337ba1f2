import type { FastifyInstance } from 'fastify';
import { LAG_COUNT_CAP } from '../../projections/runtime/status.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { positionToString } from '../../store/types.ts';
import { bogotaTime, html } from '../html.ts';
import type { PanelContext } from '../index.ts';

const PROJECTOR_LABELS: Record<string, string> = {
  vacations: 'Registros de vacaciones',
  amortizations: 'Amortizaciones',
  'contract-links': 'Vínculos con contratos',
  occupancy: 'Ocupación por subgerencia',
  audit: 'Auditoría',
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
<p>Posición más reciente del registro de eventos: <strong>${head ? positionToString(head) : '—'}</strong>.</p>
<table>
  <caption>Estado de cada modelo de lectura</caption>
  <thead><tr>
    <th scope="col">Modelo de lectura</th><th scope="col">Estado</th><th scope="col">Punto de control</th>
    <th scope="col" class="num">Eventos pendientes</th>
  </tr></thead>
  <tbody>
  ${projections.map(
    (p) => html`<tr><th scope="row">${PROJECTOR_LABELS[p.name] ?? p.name} <span class="muted">(${p.name})</span></th>
      <td>${STATE_LABELS[p.state] ?? p.state}</td><td>${positionToString(p.checkpoint)}</td><td class="num">${pending(p.lag)}</td></tr>`,
  )}
  </tbody>
</table>
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
