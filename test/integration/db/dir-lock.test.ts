import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../../src/db/dir-lock.ts';
import { spawnServe, type ServeProcess } from '../../support/reliability-server.ts';
import { CLI, TODAY, runCli } from '../../support/server.ts';

/** The embedded database beside a running server: one clear refusal, never a second opener. */
const dir = mkdtempSync(join(tmpdir(), 'vac-lock-'));
const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', DATA_DIR: dir, VACACIONES_TODAY: TODAY, PORT: '0', LOG_LEVEL: 'warn' };
let server: ServeProcess | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database directory', () => {
  it(
    'refuses the command line while a server holds it, in one line naming the server, and the server goes on',
    { timeout: 600_000 },
    async () => {
      // The embedded database's first start (its files made, every migration run) is slow on a busy machine.
      server = await spawnServe({ ...env, LOG_LEVEL: 'info' }, 180_000);
      const lock = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number };
      expect(lock.pid).toBe(server.pid);
      for (const args of [
        ['projections', 'status'],
        ['panel', 'invite', 'admin@empresa.co'],
        ['audit', 'verify'],
      ]) {
        const r = await runCli(env, args);
        expect(r.code, args.join(' ')).toBe(1);
        const lines = r.stderr.trim().split('\n');
        expect(lines, args.join(' ')).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(
            `^vacaciones: the embedded database in \\S+ is open in process ${server.pid} \\(${basename(CLI).replace('.', '\\.')} serve, since [^)]+\\): stop that process first, or set DATABASE_URL`,
          ),
        );
      }
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
      await server.stop();
      server = undefined;
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      const after = await runCli(env, ['projections', 'status']);
      expect(after.code, after.stderr).toBe(0);
    },
  );

  it('is taken over from a process that ended without letting go', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: Number(gone.stdout), command: 'vacaciones.mjs serve', since: '2026-11-21T00:00:00Z' }),
    );
    const r = await runCli(env, ['projections', 'status']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});
