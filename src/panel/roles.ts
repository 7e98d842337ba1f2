import { MESSAGES } from '../app/messages.ts';
import type { Queryable } from '../db/types.ts';

/**
 * What a person may do in the panel. An administrator does everything; an area head (jefe) sees
 * the workers of their subgerencias and approves their vacations, nothing else; an auditor reads
 * and exports everything and changes nothing. Set by `vacaciones panel invite --rol`.
 */
export const ROLES = ['administrador', 'jefe', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABEL: Record<Role, string> = {
  administrador: 'Administrador',
  jefe: 'Jefe de área',
  auditor: 'Auditor',
};

export interface Access {
  role: Role;
  /** The subgerencias a jefe answers for; empty for the other roles, who see every one. */
  units: readonly string[];
}

/** What each kind of request asks for: reading, approving, or any other change. */
export type Action = 'read' | 'approve' | 'write';

/** The kind of action a route is: approving, a change (and the pages of its forms), or reading. */
export function actionOf(method: string, route: string): Action {
  if (method === 'POST') return /\/aprobar$/.test(route) ? 'approve' : 'write';
  return /\/(editar|eliminar|interrumpir)$/.test(route) ? 'write' : 'read';
}

export function mayDo(access: Access, action: Action): boolean {
  if (access.role === 'administrador') return true;
  if (access.role === 'auditor') return action === 'read';
  return action !== 'write';
}

/** The subgerencias whose people this person sees and acts on; null: every one. */
export const unitsOf = (access: Access): string[] | null => (access.role === 'jefe' ? [...access.units] : null);

/**
 * Whether a worker of this subgerencia (their standing contract's today: src/domain/contracts.ts)
 * is this person's to see; a contract the worker has left gives a jefe no reach.
 */
export function seesUnit(access: Access, workerUnit: string | null): boolean {
  return access.role !== 'jefe' || (workerUnit !== null && access.units.includes(workerUnit));
}

/** The access of a panel account (an account from before roles existed is an administrator's). */
export async function accessOf(db: Queryable, email: string): Promise<Access | null> {
  const r = await db.query<{ role: Role; units: string[] }>(
    'SELECT role, units FROM panel_accounts WHERE email = $1 AND revoked_at IS NULL',
    [email.trim().toLowerCase()],
  );
  const row = r.rows[0];
  return row ? { role: row.role, units: row.units } : null;
}

/** The refusal a person reads when their role does not allow a page or an action. */
export const NOT_FOR_ROLE = (access: Access) =>
  access.role === 'auditor'
    ? 'Su rol de auditor permite consultar y exportar, no cambiar datos.'
    : 'Su rol de jefe de área permite consultar y aprobar las vacaciones de sus subgerencias, nada más.';

export const NOT_IN_UNITS = MESSAGES.notInUnits;
