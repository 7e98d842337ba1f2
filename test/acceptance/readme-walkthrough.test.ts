import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/server.ts';

/**
 * The README's walk-through, run as written: every sh block between its walkthrough:start and
 * walkthrough:end marks, in order, in one bash, from a directory laid out like a fresh clone (the
 * checkout's files linked in, no ./data yet), on the embedded database, as a newcomer runs it.
 * Only two things differ from their machine: `npm install` is not run again (the checkout is
 * installed) and `npm start` runs the sources (`npm run dev`) instead of building dist/ first.
 * Every HTTP answer must be a success.
 */

function walkthroughBlocks(readme: string): string[] {
  const start = readme.indexOf('<!-- walkthrough:start');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  if (start < 0 || end < start) throw new Error('README.md has no walkthrough:start ... walkthrough:end section');
  return [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

const PRELUDE = String.raw`
set -euo pipefail
npm() {
  case "$1" in
    install) echo "npm install: the checkout is installed" ;;
    start) shift; command npm run --silent dev -- "$@" ;;
    *) command npm "$@" ;;
  esac
}
# Each answer's status, on a line of its own in STATUS_LOG; the body goes where the block sends it.
curl() { command curl --write-out '%{stderr}%{http_code} %{url_effective}\n' "$@" 2>> "$STATUS_LOG"; }
`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const tools = ['bash', 'curl', 'jq'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);

describe('the README walk-through', () => {
  it('has shell blocks to run', () => {
    const blocks = walkthroughBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(blocks.join('\n')).toMatch(/npm start/);
  });

  it.skipIf(tools.length > 0)(
    `runs top to bottom on a fresh clone, every answer a success${tools.length > 0 ? ` (skipped: ${tools.join(', ')} missing)` : ''}`,
    async () => {
      const blocks = walkthroughBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
      const dir = mkdtempSync(join(tmpdir(), 'vac-readme-'));
      for (const f of ['package.json', 'bin', 'src', 'test', 'node_modules', 'tsconfig.json']) symlinkSync(join(ROOT, f), join(dir, f));
      const statusLog = join(dir, 'status.log');
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()), STATUS_LOG: statusLog, LOG_LEVEL: 'warn' };
      // A newcomer's machine: the embedded database under ./data, nothing configured.
      for (const k of ['DATABASE_URL', 'DATA_DIR', 'EVENT_STORE', 'VACACIONES_TODAY', 'NODE_OPTIONS']) delete env[k];
      const bash = spawn('bash', ['-c', `${PRELUDE}\n${blocks.join('\n')}`], { cwd: dir, env, detached: true });
      let out = '';
      bash.stdout.on('data', (d) => (out += d));
      bash.stderr.on('data', (d) => (out += d));
      try {
        const code = await new Promise<number | null>((resolve) => bash.on('close', resolve));
        const serverLog = () => {
          try {
            return readFileSync(join(dir, 'server.log'), 'utf8');
          } catch {
            return '';
          }
        };
        const answers = () => readFileSync(statusLog, 'utf8');
        expect(code, `${out}\nanswers:\n${answers()}\nserver.log:\n${serverLog()}`).toBe(0);
        const statuses = answers()
          .split('\n')
          .filter((l) => /^\d{3} /.test(l));
        const failed = statuses.filter((l) => !/^2\d\d /.test(l) && !l.includes('/health'));
        expect(failed, out).toEqual([]);
        // One answer for each call the blocks make, besides the waits for the server.
        const calls = blocks.join('\n').match(/\bcurl -s /g)!.length;
        expect(statuses.filter((l) => !l.includes('/health'))).toHaveLength(calls);
        expect(out).toMatch(/"diasDevueltos"/);
      } finally {
        try {
          process.kill(-bash.pid!, 'SIGTERM');
        } catch {
          // Already gone.
        }
        await new Promise((r) => setTimeout(r, 1000));
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
