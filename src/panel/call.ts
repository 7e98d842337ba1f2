import type { FastifyRequest } from 'fastify';
import { actorFor } from '../app/actor.ts';
import type { Call } from '../app/vacations.ts';
import type { User } from '../reference/repository.ts';

/** Who acts from the panel: the signed-in person, through no API key, logged on the request. */
export const panelCall = (req: FastifyRequest, user: User): Call => ({
  actor: actorFor({ user, source: 'panel', requestId: req.id }),
  user,
  log: req.log,
});
