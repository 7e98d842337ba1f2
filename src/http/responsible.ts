import type { FastifyRequest } from 'fastify';
import type { ReferenceLookups, User } from '../reference/repository.ts';

/**
 * The one check of the person a request names as responsible: an administrator of the reference
 * data, or null. The e-mail is kept on the request whatever the answer, for the request log and
 * the audit of a refusal.
 */
export async function responsibleAdministrator(reference: Pick<ReferenceLookups, 'userByEmail'>, req: FastifyRequest, email: string): Promise<User | null> {
  req.responsibleEmail = email;
  const user = await reference.userByEmail(email);
  req.responsibleUser = user?.isAdmin ? user : null;
  return req.responsibleUser;
}
