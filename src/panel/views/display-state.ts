import { html, shortDate, type Html } from '../html.ts';

/** Where a record stands as the panel shows it; also its badge's CSS class (badge-<state>). */
export type DisplayState = 'pendiente' | 'aprobada' | 'reemplazada' | 'eliminada' | 'interrumpida';

const STATE_LABEL: Record<DisplayState, string> = {
  pendiente: 'Pendiente de aprobación',
  aprobada: 'Aprobada',
  reemplazada: 'Reemplazada por una edición',
  eliminada: 'Eliminada',
  interrumpida: 'Interrumpida',
};

/**
 * What the panel knows of a record to say where it stands: the vacations read model's rows, a
 * worker's stream folded at any step of the audit trail, and the occupancy grid's rows all have it.
 */
export interface StateFacts {
  approved: boolean;
  deleted: boolean;
  deletedReason?: 'delete' | 'edit' | null;
  /** The first day not enjoyed, once interrupted (CST art. 188). */
  interruptedOn?: string | null;
}

/** The state a record shows: interrupted, replaced, deleted, approved or pending, in that order. */
export function displayStateOf(v: StateFacts): DisplayState {
  if (v.interruptedOn) return 'interrumpida';
  if (v.deleted) return v.deletedReason === 'edit' ? 'reemplazada' : 'eliminada';
  return v.approved ? 'aprobada' : 'pendiente';
}

/** The state's words, an interruption with the first day not enjoyed. */
export function stateLabel(v: StateFacts): string {
  const state = displayStateOf(v);
  return state === 'interrumpida' ? `${STATE_LABEL[state]} desde el ${shortDate(v.interruptedOn!)}` : STATE_LABEL[state];
}

/** Every view shows a record's state with this badge. */
export const stateBadge = (v: StateFacts): Html => html`<span class="badge badge-${displayStateOf(v)}">${stateLabel(v)}</span>`;
