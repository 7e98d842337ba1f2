import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReferenceLookups, User, Worker } from '../reference/repository.ts';
import { boundEmail } from '../security/api-keys.ts';
import { MESSAGES } from '../app/messages.ts';
import { lookupError } from './envelopes.ts';
import { Fields, emailNameHint } from '../app/fields.ts';

/**
 * A key bound to one person (`apikey create --usuario`) named someone else as responsible. Thrown,
 * so that every endpoint refuses it the same way; the error handler answers 403 `Acceso denegado`
 * in the endpoint's envelope.
 */
export class NotTheKeysUser extends Error {
  override name = 'NotTheKeysUser';
  readonly statusCode = 403;
  constructor(readonly keyName: string) {
    super(`API key "${keyName}" acts only as the person it is bound to`);
  }
}

/** The `errors` entry of a vacation endpoint's answer to NotTheKeysUser. */
export const NOT_THE_KEYS_USER = 'La API key está vinculada a otra persona: solo puede nombrar como responsable a esa persona';

/**
 * The one check of the person a request names as responsible: an administrator of the reference
 * data, or null; and, for a key bound to a person, that person (else NotTheKeysUser). The e-mail
 * is kept on the request whatever the answer, for the request log and the audit of a refusal.
 */
export async function responsibleAdministrator(
  reference: Pick<ReferenceLookups, 'userByEmail'>,
  req: FastifyRequest,
  email: string,
): Promise<User | null> {
  req.responsibleEmail = email;
  const bound = req.apiKey?.userEmail;
  if (bound && boundEmail(email) !== bound) throw new NotTheKeysUser(req.apiKey!.name);
  const user = await reference.userByEmail(email);
  req.responsibleUser = user?.isAdmin ? user : null;
  return req.responsibleUser;
}

/**
 * The lookup envelope's 400 for a read without `emailResponsable`: the interface's message, and
 * when the writes' `emailUserResponsable` was sent instead, which parameter this endpoint takes.
 */
export function responsibleMissing(reply: FastifyReply, fields: Fields, opts: { omitStatusCode?: boolean } = {}) {
  const hint = emailNameHint(fields, 'emailResponsable');
  return lookupError(reply, 400, hint ? `${MESSAGES.emailResponsableRequired} ${hint}` : MESSAGES.emailResponsableRequired, opts);
}

/** The responsible administrator a read names in `emailResponsable`: 'missing' when it names none. */
export async function responsibleOfQuery(
  reference: Pick<ReferenceLookups, 'userByEmail'>,
  fields: Fields,
  req: FastifyRequest,
): Promise<User | null | 'missing'> {
  const email = fields.get('emailResponsable');
  if (!email) return 'missing';
  return responsibleAdministrator(reference, req, email);
}

/**
 * A read about one worker: its `numeroDocumento` and a responsible administrator, checked in the
 * order every such read checks them. Undefined once the failure is answered (lookup envelope).
 */
export async function workerRead(
  reference: Pick<ReferenceLookups, 'userByEmail' | 'workerByDocument'>,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<{ fields: Fields; worker: Worker; user: User } | undefined> {
  const fields = new Fields(req.query);
  const doc = fields.get('numeroDocumento');
  if (!doc) return void lookupError(reply, 400, MESSAGES.documentRequired);
  const user = await responsibleOfQuery(reference, fields, req);
  if (user === 'missing') return void responsibleMissing(reply, fields);
  const worker = await reference.workerByDocument(doc);
  if (!worker) return void lookupError(reply, 404, MESSAGES.workerNotFound);
  if (!user) return void lookupError(reply, 404, MESSAGES.adminNotFound);
  return { fields, worker, user };
}
