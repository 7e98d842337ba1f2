import { expect } from 'vitest';
import { ADMIN, W, addVacation, vacationForm, type Client } from './http.ts';

/** The codes of the December records a month's reports are tested on. */
export interface DecemberCodes {
  /** Maria's, enjoyed from 2026-12-01, approved. */
  maria: string;
  /** Maria's, compensated in money from 2026-12-14. */
  money: string;
  /** Luisa's, from 2026-12-07, deleted. */
  deleted: string;
  /** Camilo's, from 2026-12-07, replaced by an edit... */
  old: string;
  /** ...by this one, from 2026-12-09. */
  edited: string;
}

/** Books December's records through the API, on a company without a limit of people away at once. */
export async function bookDecember(c: Client): Promise<DecemberCodes> {
  const maria = (await addVacation(c, vacationForm(W.maria, '2026-12-01', 6))).codigo_pila;
  const approved = await c.post('/api/vacaciones/approve', { codigoPila: maria, emailUserResponsable: ADMIN });
  expect(approved.status, approved.text).toBe(200);
  const money = (await addVacation(c, vacationForm(W.maria, '2026-12-14', 6, { vacCompensado: '1' }))).codigo_pila;
  const deleted = (await addVacation(c, vacationForm(W.luisa, '2026-12-07', 6))).codigo_pila;
  const del = await c.post('/api/vacaciones/delete', { codigoPila: deleted, emailUserResponsable: ADMIN });
  expect(del.status, del.text).toBe(200);
  const old = (await addVacation(c, vacationForm(W.camilo, '2026-12-07', 6))).codigo_pila;
  const edit = await c.post('/api/vacaciones/edit', { codigoPila: old, ...vacationForm(W.camilo, '2026-12-09', 7) });
  expect(edit.status, edit.text).toBe(200);
  return { maria, money, deleted, old, edited: edit.body.data.codigoPilaNuevo };
}
