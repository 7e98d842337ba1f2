import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLER_LIFELINE } from '../../../src/rebuild-process.ts';
import { allProjectors, readCheckpoints } from '../../../src/projections/index.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { START, comparePositions } from '../../../src/store/types.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { EXIT_WITH_PARENT, ROOT } from '../../support/server.ts';

/** The processes running `projections rebuild` on this database (Linux: /proc). */
function rebuildsOn(url: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args.includes('projections') || !args.includes('rebuild')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`DATABASE_URL=${url}`)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`still not ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!hasServer() || process.platform !== 'linux')(
  `a service killed during its start-up rebuild${
    !hasServer()
      ? ` (skipped: ${NEEDS_SERVER})`
      : process.platform !== 'linux'
        ? ' (skipped: reads the processes from /proc, Linux only)'
        : ''
  }`,
  () => {
    let t: TestDb;

    beforeAll(async () => {
      t = await freshDb();
    });
    afterAll(async () => {
      for (const pid of rebuildsOn(t.url!)) process.kill(pid, 'SIGKILL');
      await t?.drop();
    });

    const nothingSwappedIn = async () => {
      const cps = await readCheckpoints(
        t.db,
        allProjectors.map((p) => p.name),
      );
      return [...cps.values()].every((c) => comparePositions(c, START) === 0);
    };

    it('takes its rebuild with it: nothing runs on, nothing is swapped in after it', async () => {
      await appendScenario(new PostgresEventStore(t.db), 10, 61);
      const service = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, 'test/support/start-behind.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: t.url! },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      service.stdout.on('data', (d: Buffer) => (out += d.toString()));
      service.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const gone = new Promise((r) => service.once('exit', r));
      try {
        await until('rebuilding', () => rebuildsOn(t.url!).length > 0, 30_000);
      } catch (err) {
        service.kill('SIGKILL');
        throw new Error(`${(err as Error).message}; the service said: ${out}`, { cause: err });
      }
      expect(out).toContain('rebuilding them before taking traffic');
      // No shutdown of its own: what a supervisor's SIGKILL, or the kernel's OOM killer, does.
      service.kill('SIGKILL');
      await gone;

      await until('ended', () => rebuildsOn(t.url!).length === 0, 20_000);
      // Had it run on, the rebuilt tables would have been swapped in at the log's head by now.
      expect(await nothingSwappedIn()).toBe(true);
    });

    // Above, the rebuild would also have died at its next line of output, into the killed
    // service's pipe. Here its output goes to a file: the end of its input alone must stop it.
    it('stops the rebuild command the moment its caller goes, before it swaps anything in', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vac-lifeline-'));
      const errFd = openSync(join(dir, 'stderr'), 'w');
      try {
        const rebuild = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'projections', 'rebuild'], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: t.url!, [CALLER_LIFELINE]: '1' },
          stdio: ['pipe', 'ignore', errFd],
        });
        const code = new Promise<number | null>((r) => rebuild.once('exit', (c) => r(c)));
        // What the service's end does when the service dies.
        rebuild.stdin!.end();
        expect(await code).toBe(1);
        expect(readFileSync(join(dir, 'stderr'), 'utf8')).toContain('the service that started this rebuild has stopped');
        expect(await nothingSwappedIn()).toBe(true);
      } finally {
        closeSync(errFd);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
