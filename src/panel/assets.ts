import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The panel's style sheet and script, served by the service itself (nothing from a CDN, so the
 * panel works offline). Beside this file when run from the sources; the compiled build finds
 * them in the package's src/ folder.
 */
const here = dirname(fileURLToPath(import.meta.url));
export const ASSETS_DIR = [join(here, 'assets'), join(here, '../../src/panel/assets')].find((d) => existsSync(join(d, 'panel.css')))!;

const versions = new Map<string, string>();
/** The asset's address, with its content's hash so that browsers may keep it for good. */
export function assetPath(name: string): string {
  let v = versions.get(name);
  if (v === undefined) {
    v = createHash('sha256')
      .update(readFileSync(join(ASSETS_DIR, name)))
      .digest('hex')
      .slice(0, 12);
    versions.set(name, v);
  }
  return `/panel/recursos/${name}?v=${v}`;
}

export async function registerAssets(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, {
    root: ASSETS_DIR,
    prefix: '/panel/recursos/',
    decorateReply: false,
    index: false,
    list: false,
    immutable: true,
    maxAge: '365d',
  });
}
