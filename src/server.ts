import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './app/context.ts';
import { buildApp, type AppOptions } from './http/app.ts';
import { PANEL_ERRORS, isPanelPath, mountPanel, sendPanelError } from './panel/index.ts';

/** The panel, as the API mounts pages: composed here so that neither knows the other. */
const panelPages = {
  mount: (app: FastifyInstance, deps: AppDeps) => mountPanel(app, deps),
  owns: isPanelPath,
  sendError: (reply: Parameters<typeof sendPanelError>[0], status: 400 | 414) =>
    sendPanelError(reply, status, status === 414 ? PANEL_ERRORS.uriTooLong : PANEL_ERRORS.badUrl),
};

/** The whole HTTP server: the API with the panel beside it. */
export function buildServer(deps: AppDeps, opts: Omit<AppOptions, 'pages'>): Promise<FastifyInstance> {
  return buildApp(deps, { ...opts, pages: panelPages });
}
