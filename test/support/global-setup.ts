import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin connection string of a real PostgreSQL server, or '' when tests run on PGlite. */
    pgAdminUrl: string;
    pgBackend: string;
  }
}

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

async function dockerPostgres(): Promise<{ url: string; stop: () => Promise<unknown> } | undefined> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([getContainerRuntimeClient(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000))]);
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const c = await new PostgreSqlContainer('postgres:16-alpine').start();
    return { url: c.getConnectionUri(), stop: () => c.stop() };
  } catch {
    return undefined;
  }
}

/**
 * Chooses the database behind the integration tests once per run: DATABASE_URL when set (and it
 * must answer), else a throw-away PostgreSQL container where Docker runs, else embedded PGlite.
 */
export default async function setup(project: TestProject) {
  // The tests run the command line and the server from the compiled build (test/support/server.ts,
  // CLI): made once here from the sources by the build `npm start` runs, incrementally.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  } catch {
    // Type errors (shown above) still leave every file emitted: the tests run, as they did from
    // the sources; `npm run typecheck` is where they fail.
    console.warn('[tests] the build reported type errors; the tests run what it emitted');
  }
  const url = process.env.DATABASE_URL;
  if (url) {
    if (!(await reachable(url))) {
      throw new Error(`DATABASE_URL is set but the server does not answer: ${url.replace(/:[^:@/]*@/, ':***@')}`);
    }
    project.provide('pgAdminUrl', url);
    project.provide('pgBackend', 'postgres (DATABASE_URL)');
    console.log('[tests] integration tests run on the PostgreSQL server from DATABASE_URL');
    return;
  }
  const docker = await dockerPostgres();
  if (docker) {
    project.provide('pgAdminUrl', docker.url);
    project.provide('pgBackend', 'postgres (testcontainers)');
    console.log('[tests] integration tests run on a PostgreSQL container (testcontainers)');
    return async () => {
      await docker.stop();
    };
  }
  project.provide('pgAdminUrl', '');
  project.provide('pgBackend', 'pglite');
  console.log(
    '[tests] no DATABASE_URL and no Docker: integration tests run on embedded PGlite; ' +
      'tests that need a real server (concurrency, crashes) are skipped and say so',
  );
}
