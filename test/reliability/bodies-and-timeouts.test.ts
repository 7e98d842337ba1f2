import autocannon from 'autocannon';
import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { W, call, vacationForm } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Bodies are refused before they are read, and slow clients or a database that holds a request
 * back get an answer instead of a wait: against the real server, over raw sockets where the
 * bytes a client managed to send are what is measured.
 */

const BODY_LIMIT = 65_536;
const HUNDRED_MB = 100 * 1024 * 1024;
/**
 * What the kernel may hold between a client and the server on loopback (the client's send buffer
 * and the server's receive buffer), beyond what the server read: a client can get this far past
 * the limit even when the server stops reading at it.
 */
const SOCKET_BUFFERS = 16 * 1024 * 1024;
const HEADERS_TIMEOUT_MS = 1500;
const LOCK_TIMEOUT_MS = 1500;

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({
    env: {
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
      RATE_LIMIT_PER_MINUTE: '0',
    },
  });
});
afterAll(async () => srv?.stop());

interface Streamed {
  /** Bytes of body the socket accepted before the server closed it (an upper bound of what it read). */
  sent: number;
  /** The status line's code the server answered with, if it answered. */
  status: number | null;
  closedByServer: boolean;
}

const port = () => Number(new URL(srv.url).port);

/**
 * Sends `head` and then up to `total` bytes of chunked body, as fast as the socket takes them.
 * `answeredFirst`: a refusal due on the head alone is awaited before any body is sent. Were the
 * body pumped meanwhile, the server's close over unread bytes resets the connection, and a reset
 * can drop the answer before this side reads it: the status would be lost, not wrong.
 */
function streamBody(head: string, prefix: string, total: number, answeredFirst = false): Promise<Streamed> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port(), '127.0.0.1');
    let sent = 0;
    let answer = '';
    let finished = false;
    let ended = false;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    const done = (closedByServer: boolean) => {
      if (finished) return;
      finished = true;
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      resolve({ sent, status: m ? Number(m[1]) : null, closedByServer });
    };
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('end', () => done(true));
    socket.on('close', () => done(!ended));
    socket.on('error', () => done(true));
    const pump = () => {
      // Once the answer has begun, every byte more only widens the window for a reset to drop it.
      while (!finished && sent < total && answer.length === 0) {
        sent += chunk.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
      if (!finished && !ended) {
        ended = true;
        socket.end('0\r\n\r\n');
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      const p = Buffer.from(prefix);
      socket.write(`${p.length.toString(16)}\r\n${prefix}\r\n`);
      if (!answeredFirst) return pump();
      // The answer comes with the close; without one in a few seconds the body goes, and the test fails on what the server did.
      const late = setTimeout(pump, 5000);
      socket.once('close', () => clearTimeout(late));
    });
  });
}

const chunkedHead = (path: string, contentType: string, key: string | null) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: ${contentType}\r\n` +
  (key ? `X-Api-Key: Bearer ${key}\r\n` : '') +
  '\r\n';

const BOUNDARY = 'xYzBoUnDaRy';
const multipartStart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="relleno"\r\n\r\n`;

function expectRefusedEarly(r: Streamed, status: number) {
  expect(r.status).toBe(status);
  expect(r.closedByServer).toBe(true);
  expect(r.sent).toBeLessThan(BODY_LIMIT + SOCKET_BUFFERS);
}

describe('bodies refused before they are read', () => {
  it('without a key, a 100 MB chunked body gets 401 and the connection closed, not read', async () => {
    const r = await streamBody(chunkedHead('/api/vacaciones/add', 'application/json', null), '{"a":"', HUNDRED_MB, true);
    expectRefusedEarly(r, 401);
  });

  it('without a key, a 100 MB chunked multipart body gets 401 and the connection closed', async () => {
    const r = await streamBody(
      chunkedHead('/api/vacaciones/add', `multipart/form-data; boundary=${BOUNDARY}`, null),
      multipartStart,
      HUNDRED_MB,
      true,
    );
    expectRefusedEarly(r, 401);
  });

  it.each([
    ['JSON', 'application/json', '{"relleno":"'],
    ['a form', 'application/x-www-form-urlencoded', 'relleno='],
    ['multipart', `multipart/form-data; boundary=${BOUNDARY}`, multipartStart],
  ])(
    'with a key, a 100 MB chunked %s body is cut at the limit: 413, connection closed',
    // The body must flow for the limit to be reached, so the server closes over bytes it did not
    // read; TCP then resets the connection, and on a loaded machine the reset can arrive before
    // this side has read the 413 (the answer is lost in transit, not wrong): tried again then.
    { retry: 2 },
    async (_name, type, prefix) => {
      const r = await streamBody(chunkedHead('/api/vacaciones/add', type, srv.keys.acceptance!), prefix, HUNDRED_MB);
      expectRefusedEarly(r, 413);
    },
  );

  it('a multipart body with a declared length over the limit is refused without reading it', async () => {
    const head =
      `POST /api/vacaciones/add HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${HUNDRED_MB}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nX-Api-Key: Bearer ${srv.keys.acceptance}\r\n\r\n`;
    const r = await new Promise<Streamed>((resolve) => {
      const s = connect(port(), '127.0.0.1');
      let answer = '';
      let sent = 0;
      let over = false;
      const finish = () => {
        if (over) return;
        over = true;
        s.destroy();
        resolve({ sent, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? NaN) || null, closedByServer: true });
      };
      s.on('data', (d) => (answer += d.toString('latin1')));
      s.on('close', finish);
      s.on('error', finish);
      s.on('connect', () => {
        s.write(head);
        const chunk = Buffer.alloc(64 * 1024, 'b');
        const pump = () => {
          while (!over && sent < HUNDRED_MB) {
            sent += chunk.length;
            if (!s.write(chunk)) return void s.once('drain', pump);
          }
        };
        // The refusal is due on the head alone: awaited before any body goes (see streamBody).
        const late = setTimeout(pump, 5000);
        s.once('close', () => clearTimeout(late));
      });
    });
    expectRefusedEarly(r, 413);
  });

  it('a multipart body within the limit is still read, fields and all', async () => {
    const a = await call(srv.url, '/api/vacaciones/calculate', {
      key: srv.keys.acceptance!,
      multipart: vacationForm(W.maria, '2026-01-05', 15),
    });
    expect(a.status, a.text).toBe(200);
    expect(a.body.data.vacFechaFinal).toBe('2026-01-26');
  });

  it("calculate's p99 during four attackers streaming 100 MB bodies stays within 1.5 times its p99 without them", async () => {
    const form = new URLSearchParams(vacationForm(W.maria, '2026-01-05', 15)).toString();
    const measure = async () =>
      (
        await autocannon({
          url: `${srv.url}/api/vacaciones/calculate`,
          method: 'POST',
          connections: 4,
          duration: 3,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': `Bearer ${srv.keys.acceptance}` },
          body: form,
        })
      ).latency.p99;
    /** Four attackers, each starting a new 100 MB stream as soon as the last was cut off, until told to stop. */
    const attack = () => {
      let stop = false;
      let streams = 0;
      const loops = Array.from({ length: 4 }, async () => {
        while (!stop) {
          streams++;
          const r = await streamBody(chunkedHead('/api/vacaciones/add', 'application/json', null), '{"a":"', HUNDRED_MB);
          expect(r.sent).toBeLessThan(BODY_LIMIT + SOCKET_BUFFERS);
          await new Promise((res) => setTimeout(res, 50));
        }
      });
      return {
        async end() {
          stop = true;
          await Promise.all(loops);
          return streams;
        },
      };
    };
    await measure(); // warm-up
    // Pairs of a quiet and an attacked measure, until one pair holds the bound or three were tried:
    // the whole suite shares two cores, so one pair may catch another file's burst, while a server
    // that reads the attackers' bodies (four streams of 100 MB at once) fails every pair.
    const pairs: string[] = [];
    let held = false;
    for (let attempt = 0; attempt < 3 && !held; attempt++) {
      const quiet = await measure();
      const a = attack();
      const attacked = await measure();
      expect(await a.end()).toBeGreaterThan(4);
      pairs.push(`quiet ${quiet} ms, attacked ${attacked} ms`);
      // A few milliseconds of floor: at p99s of a few milliseconds one scheduling hiccup is 1.5 times.
      held = attacked <= 1.5 * quiet + 5;
    }
    expect(held, pairs.join('; ')).toBe(true);
  });
});

describe('slow clients and a database that holds requests back', () => {
  it('headers that do not arrive within HEADERS_TIMEOUT_MS get 408 and the connection closed', async () => {
    const answer = await new Promise<string>((resolve) => {
      const s = connect(port(), '127.0.0.1');
      let text = '';
      s.on('data', (d) => (text += d.toString('utf8')));
      s.on('close', () => resolve(text));
      s.on('connect', () => s.write('GET /api/vacaciones/consultdatavacations HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
      // One more byte now and then, as a slowloris client sends them.
      const drip = setInterval(() => s.writable && s.write('a'), 200);
      s.on('close', () => clearInterval(drip));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      success: false,
      statusCode: 408,
      message: 'La solicitud no llegó completa a tiempo',
    });
  });

  it('a write held past DATABASE_LOCK_TIMEOUT_MS by a table lock answers 503 with Retry-After, and readiness says not ready meanwhile', async (ctx) => {
    if (!srv.postgres) return ctx.skip(); // one connection on PGlite: nobody else can hold a lock
    const c = new pg.Client({ connectionString: srv.env.DATABASE_URL });
    await c.connect();
    try {
      expect((await call(srv.url, '/health/ready', { key: null })).status).toBe(200);
      await c.query('BEGIN');
      await c.query('LOCK TABLE events IN SHARE MODE');
      const started = Date.now();
      const [add, ready] = await Promise.all([
        call(srv.url, '/api/vacaciones/add', { key: srv.keys.acceptance!, form: vacationForm(W.juan, '2026-12-14', 6) }),
        call(srv.url, '/health/ready', { key: null }),
      ]);
      const waited = Date.now() - started;
      expect({ status: add.status, retryAfter: add.headers.get('retry-after') }, add.text).toEqual({ status: 503, retryAfter: '2' });
      expect(add.body).toMatchObject({
        success: false,
        statusCode: 503,
        message: 'Servicio no disponible temporalmente. Intente de nuevo en unos segundos.',
      });
      expect(add.text).not.toMatch(/at .*\.(ts|js):\d+/);
      expect(ready.status).toBe(503);
      // Refused when the lock wait ran out, not when the lock was given up.
      expect(waited).toBeLessThan(60_000);
      await c.query('ROLLBACK');
      expect((await call(srv.url, '/health/ready', { key: null })).status).toBe(200);
      const again = await call(srv.url, '/api/vacaciones/add', { key: srv.keys.acceptance!, form: vacationForm(W.juan, '2026-12-14', 6) });
      expect(again.status, again.text).toBe(201);
    } finally {
      await c.query('ROLLBACK').catch(() => {});
      await c.end();
    }
  });
});
