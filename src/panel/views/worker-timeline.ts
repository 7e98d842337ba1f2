import type { VacationView } from '../../projections/index.ts';
import { bogotaTime, pilaCode, html, pesos, shortDate, url, type Html } from '../html.ts';
import { stateBadge, displayStateOf, type StateFacts } from './display-state.ts';
import { amortizationTable, fromTo } from './vacation-form.ts';

/** What the person's role and permissions let them do to a record, so the page shows only those buttons. */
export interface Can {
  approve: boolean;
  write: boolean;
  delete: boolean;
}

/** A read model's record as the state functions take it. */
const facts = (v: VacationView): StateFacts => ({ ...v, deleted: v.status === 'deleted' });

/** An approved, enjoyed vacation in course on `today`: the one kind that may be interrupted. */
const interruptible = (v: VacationView, today: string) =>
  v.status === 'live' && v.approved && !v.compensated && !v.interruptedOn && v.startDate <= today && today <= v.endDate;

export function timeline(list: VacationView[], can: Can, doc: string, csrf: string, today: string): Html {
  if (list.length === 0) return html`<p>El trabajador no tiene vacaciones registradas.</p>`;
  const ordered = [...list].sort((a, b) => b.startDate.localeCompare(a.startDate) || b.recordId - a.recordId);
  const live = ordered.filter((v) => v.status === 'live');
  const gone = ordered.filter((v) => v.status !== 'live');
  const items = (records: VacationView[], label: string) =>
    html`<ol class="timeline" aria-label="${label}">${records.map((v) => timelineItem(v, can, doc, csrf, today))}</ol>`;
  return html`${live.length ? items(live, 'Vacaciones vigentes, de la más reciente a la más antigua') : html`<p>El trabajador no tiene vacaciones vigentes.</p>`}
${
  gone.length
    ? html`<details class="gone-records"><summary>Reemplazadas o eliminadas (${gone.length})</summary>
${items(gone, 'Vacaciones reemplazadas o eliminadas')}</details>`
    : ''
}`;
}

function timelineItem(v: VacationView, can: Can, doc: string, csrf: string, today: string): Html {
  const state = displayStateOf(facts(v));
  const live = v.status === 'live';
  return html`<li id="${v.codigoPila}" class="${live ? '' : 'gone'}">
  <h3>${shortDate(v.startDate)} – ${shortDate(v.endDate)} ${stateBadge(facts(v))}</h3>
  <dl class="facts">
    <dt>Código PILA</dt><dd>${pilaCode(v.codigoPila)}</dd>
    <dt>Días</dt><dd>${v.businessDays} hábiles, ${v.calendarDays} calendario${v.compensated ? ', compensadas en dinero' : ''}${
      v.advance ? ', anticipadas' : ''
    }</dd>
    <dt>Valor</dt><dd>${pesos(v.totalValue)}</dd>
    ${v.createdAt ? html`<dt>Registrada</dt><dd>${bogotaTime(v.createdAt)}</dd>` : ''}
    ${v.approvedAt ? html`<dt>Aprobada</dt><dd>${bogotaTime(v.approvedAt)}</dd>` : ''}
    ${v.deletedAt ? html`<dt>${state === 'reemplazada' ? 'Reemplazada' : 'Eliminada'}</dt><dd>${bogotaTime(v.deletedAt)}</dd>` : ''}
    ${
      v.interruptedOn
        ? html`<dt>Interrumpida</dt><dd>desde el ${shortDate(v.interruptedOn)} (${v.interruptionReason ?? 'sin motivo'});
          los días no disfrutados volvieron al saldo</dd>`
        : ''
    }
    ${v.continues ? html`<dt>Continúa</dt><dd><a href="${url`#${v.continues}`}"><code>${v.continues}</code></a></dd>` : ''}
    ${v.replaces ? html`<dt>Reemplaza a</dt><dd>${pilaCode(v.replaces)}</dd>` : ''}
    ${v.replacedBy ? html`<dt>Reemplazada por</dt><dd><a href="${url`#${v.replacedBy}`}"><code>${v.replacedBy}</code></a></dd>` : ''}
  </dl>
  ${amortizationTable(v.amortizations, `Amortizaciones de las vacaciones ${fromTo(v)}`)}
  <div class="actions">
    ${
      live && !v.approved && can.approve
        ? html`<form method="post" action="${url`/panel/vacaciones/${v.codigoPila}/aprobar`}" class="inline">
        <input type="hidden" name="_csrf" value="${csrf}">
        <button type="submit" aria-label="Aprobar las vacaciones ${fromTo(v)}">Aprobar</button>
      </form>`
        : ''
    }
    ${
      can.write && interruptible(v, today)
        ? html`<a class="button secondary" href="${url`/panel/vacaciones/${v.codigoPila}/interrumpir`}"
            aria-label="Interrumpir las vacaciones ${fromTo(v)}">Interrumpir…</a>`
        : ''
    }
    ${
      live && !v.approved && can.write && can.delete
        ? html`<a class="button secondary" href="${url`/panel/vacaciones/${v.codigoPila}/eliminar`}"
            aria-label="Eliminar las vacaciones ${fromTo(v)}">Eliminar…</a>`
        : ''
    }
    ${
      live && !v.approved && !v.interruptedOn && can.write
        ? html`<a class="button secondary" href="${url`/panel/vacaciones/${v.codigoPila}/editar`}"
            aria-label="Editar o cambiar de fecha las vacaciones ${fromTo(v)}">Editar…</a>`
        : ''
    }
    <a href="${url`/panel/auditoria?documento=${doc}&codigo=${v.codigoPila}`}">Ver su auditoría</a>
  </div>
</li>`;
}
