import type { FastifyReply, FastifyRequest } from 'fastify';
import { Fields } from '../app/fields.ts';
import { repeatedField } from '../app/messages.ts';
import { errorFor } from './envelopes.ts';

/**
 * A parameter given twice, in the same case or another (`numeroDocumento=…&NUMERODOCUMENTO=…`), is
 * refused with a 400 naming it, before the handler could answer for one of the values. The
 * vacation family's routes refuse it as they validate (src/app/vacation-input.ts), among the
 * other problems of the form and in the errors' shape each documents; this hook refuses it on
 * the lookup and contract families, which read their parameters one by one.
 */
export async function refuseRepeatedParameters(req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const kind = req.routeOptions.config?.envelope;
  if (kind === undefined || kind === 'vacation') return;
  const name = new Fields(req.query).firstRepeated() ?? new Fields(req.body).firstRepeated();
  if (name !== undefined) return errorFor(kind, reply, 400, repeatedField(name));
}
