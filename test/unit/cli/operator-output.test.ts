import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { reportVerification } from '../../../src/cli/commands/audit.ts';
import { replay, type ReplaySource } from '../../../src/cli/commands/replay.ts';
import type { CliIo } from '../../../src/cli/context.ts';
import { main } from '../../../src/cli/main.ts';
import { workerStream } from '../../../src/events/streams.ts';
import type { StoredEvent } from '../../../src/store/types.ts';
import { approvedEvent, created, record } from '../../support/event-builders.ts';
import { CLI, ROOT } from '../../support/server.ts';

/** What a command printed, to a terminal of `columns` or (undefined) to a pipe. */
function captured(columns?: number): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (l) => lines.push(...l.split('\n')), err: (l) => lines.push(...l.split('\n')), columns };
}

const r = record({ codigoPila: 'VAC_1700000000000_0a1b2c3d_4e5f6a7b', workerId: 1 });
const source: ReplaySource = {
  async workerEvents() {
    const events: StoredEvent[] = [created(r), approvedEvent(r)].map((e, i) => ({
      ...e,
      version: e.version ?? 1,
      metadata: { ...e.metadata, requestId: 'f'.repeat(36), userEmail: 'una.persona.con.un.correo.largo@empresa-de-ejemplo.com.co' },
      stream: workerStream(1),
      revision: i,
      position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
      // 02:30 UTC is 21:30 of the day before in Bogotá.
      recordedAt: `2026-03-0${i + 2}T02:30:00.000Z`,
    }));
    return { workerId: 1, events };
  },
};

describe('replay', () => {
  it('names the events in Spanish, at the time of Bogotá', async () => {
    const io = captured();
    await replay(io, source, { documento: '1001' });
    expect(io.lines[2]).toMatch(/^\s*0\s+worker\s+2026-03-01 21:30:00\s+registro\s/);
    expect(io.lines[3]).toMatch(/^\s*1\s+worker\s+2026-03-02 21:30:00\s+aprobación\s/);
    // To a pipe every column comes whole.
    expect(io.lines[1]).toMatch(/REQUEST/);
    expect(io.lines[2]).toContain('f'.repeat(36));
  });

  it('fits each line to a terminal of 100 columns', async () => {
    const io = captured(100);
    await replay(io, source, { documento: '1001' });
    for (const l of io.lines) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(io.lines[2]).toMatch(/registro/);
  });
});

describe('audit verify', () => {
  it('shows a rate only when it was measured over enough events and time', () => {
    const few = captured();
    reportVerification(few, 'every stream', { events: 31, streams: 4, breaks: [], ms: 286 });
    expect(few.lines).toEqual(['verified every stream: 31 events in 4 streams in 0.3 s: every chain holds']);
    const many = captured();
    reportVerification(many, 'every stream', { events: 200_000, streams: 5000, breaks: [], ms: 4000 });
    expect(many.lines).toEqual(['verified every stream: 200000 events in 5000 streams in 4.0 s (50000 events/s): every chain holds']);
  });
});

describe('--help', () => {
  it('shows examples and the environment variables', async () => {
    const io = captured();
    await main(['node', 'vacaciones', '--help'], io);
    const text = io.lines.join('\n');
    expect(text).toMatch(/^Examples /m);
    expect(text).toMatch(/npm run cli -- import test\/fixtures\/reference-data\.json/);
    for (const name of ['DATABASE_URL', 'DATA_DIR', 'EVENT_STORE', 'LOG_LEVEL', 'VACACIONES_TODAY', 'TRUST_PROXY'])
      expect(text).toContain(name);
  });
});

describe('the commands', () => {
  it("are each registered alone when named: one command's help, and a misspelt name still answered with the one meant", async () => {
    const one = captured();
    await main(['node', 'vacaciones', 'import', '--help'], one);
    expect(one.lines[0]).toBe('Usage: vacaciones import [options] <file>');
    const misspelt = captured();
    await main(['node', 'vacaciones', 'impor'], misspelt);
    expect(misspelt.lines).toEqual(["error: unknown command 'impor'", '(Did you mean import?)']);
  });

  it('end quietly when the reader of their output stops reading (| head)', async () => {
    const child = spawn(process.execPath, [CLI, '--help'], { cwd: ROOT });
    // Closed before the command writes its first line: every write it makes fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('the log', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  const logOnce = ['--import', 'tsx', 'test/support/log-one-line.ts'];

  it('is one JSON object a line to a pipe', () => {
    const out = execFileSync(process.execPath, logOnce, { encoding: 'utf8' });
    expect(JSON.parse(out.trim())).toMatchObject({ level: 30, reqId: 'r-1', msg: 'una línea del registro' });
  });

  it.skipIf(!hasScript)('is pretty, in the time of Bogotá, on a terminal (run under script(1) for one)', () => {
    const out = execFileSync('script', ['-qec', [process.execPath, ...logOnce].join(' '), '/dev/null'], { encoding: 'utf8' });
    const plain = out.replace(new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g'), '');
    expect(plain).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO: una línea del registro\r?\n\s+reqId: "r-1"/);
    expect(plain).not.toContain('{"level"');
  });
});
