import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app/context.ts';
import type { User } from '../reference/repository.ts';
import type { Flash, PageOptions, Section } from './layout.ts';
import type { Access, Action } from './roles.ts';

declare module 'fastify' {
  interface Session {
    email?: string;
    /** When the person signed in (ms): the session ends SESSION_MAX_MS later, however busy. */
    signedInAt?: number;
    flash?: Flash;
  }
  interface FastifyRequest {
    /** The signed-in administrator, on the pages behind sign-in. */
    panelUser: User | null;
    /** What the signed-in person's role lets them see and do. */
    panelAccess: Access | null;
  }
}

/** What the pages need: the HTTP interface's dependencies plus the projections' state. */
export type PanelDeps = AppDeps;

export interface PanelContext {
  deps: PanelDeps;
  /** Renders a page for the signed-in person, with the CSRF token its forms carry. */
  render(
    req: FastifyRequest,
    reply: FastifyReply,
    o: Omit<PageOptions, 'user' | 'csrf'> & { section: Section; status?: number },
  ): FastifyReply;
  /** A message for the next page this session sees (after a redirect). */
  flash(req: FastifyRequest, flash: Flash): void;
  csrf(reply: FastifyReply): string;
  /** The subgerencias whose people this person sees and acts on; null: every one. */
  unitsOf(req: FastifyRequest): string[] | null;
  /** Whether the person may do this (their role allows the kind of action). */
  may(req: FastifyRequest, action: Action): boolean;
  /** Whether the worker with this document is the person's to see (a jefe sees their subgerencias' workers). */
  seesWorker(req: FastifyRequest, documentNumber: string): Promise<boolean>;
  /** The page that says the person's role does not allow this (403). */
  refuse(req: FastifyRequest, reply: FastifyReply, text: string): FastifyReply;
}
