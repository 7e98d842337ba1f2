import type { FastifyRequest } from 'fastify';
import { actorFor } from '../app/actor.ts';
import type { Call } from '../app/vacations.ts';
import type { User } from '../reference/repository.ts';
import { unitsOf } from './roles.ts';

/**
 * Who acts from the panel: the signed-in person, through no API key, logged on the request, held
 * to their role's subgerencias (a jefe's), which every command judges on the record's own stream.
 */
export const panelCall = (req: FastifyRequest, user: User): Call => ({
  actor: actorFor({ user, source: 'panel', requestId: req.id, scope: unitsOf(req.panelAccess!) }),
  user,
  log: req.log,
});
