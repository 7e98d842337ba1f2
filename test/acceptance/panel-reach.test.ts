import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/app/messages.ts';
import { openDb } from '../../src/db/open.ts';
import { acceptInvite, createInvite } from '../../src/panel/accounts.ts';
import type { Access } from '../../src/panel/roles.ts';
import { hasServer, NEEDS_SERVER } from '../support/db.ts';
import { ADMIN, AUDITOR, client, vacationForm, type Client } from '../support/http.ts';
import { PANEL_PASSWORD, PanelClient, message, type PanelAnswer } from '../support/panel.ts';
import { MOVED, MOVED_EXTRA, panelExtraFile } from '../support/panel-corners.ts';
import { runCli, startTestServer, type TestServer } from '../support/server.ts';

/**
 * An area head's reach, against a real server on PostgreSQL, through the panel's forms as a
 * browser posts them (session cookie and CSRF token): decided by the commands on the record's own
 * stream, never by a read model that may lag; and a worker's settled contract gives no reach.
 */

const JEFA_OPS = 'jefa.operaciones@empresa.co';
const JEFE_TEC = 'jefe.tecnologia@empresa.co';
const JEFE_USERS = [
  { id: 9, email: JEFA_OPS, nombre: 'Jefa de Operaciones', administrador: true, permisos: [] },
  { id: 10, email: JEFE_TEC, nombre: 'Jefe de Tecnología', administrador: true, permisos: [] },
];
const ACCESS: [string, Access][] = [
  [ADMIN, { role: 'administrador', units: [] }],
  [AUDITOR, { role: 'auditor', units: [] }],
  [JEFA_OPS, { role: 'jefe', units: ['SG-OPS'] }],
  [JEFE_TEC, { role: 'jefe', units: ['SG-TEC'] }],
];

let srv: TestServer;
let api: Client;
/** A connection of the test's own: the log as stored, and the lock that holds a read model back. */
let db: pg.Client;

beforeAll(async () => {
  if (!hasServer()) return;
  srv = await startTestServer({
    beforeStart: async (env) => {
      const r = await runCli(env, ['import', panelExtraFile({ ...MOVED_EXTRA, usuarios: JEFE_USERS })]);
      if (r.code !== 0) throw new Error(r.stderr);
      const d = await openDb({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR! });
      try {
        for (const [email, access] of ACCESS)
          await acceptInvite(d, (await createInvite(d, email, new Date(), access)).token, PANEL_PASSWORD);
      } finally {
        await d.close();
      }
    },
  });
  api = client(srv.url, srv.keys.acceptance!);
  db = new pg.Client({ connectionString: srv.env.DATABASE_URL });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await srv?.stop();
});

async function signedIn(email: string): Promise<PanelClient> {
  const c = new PanelClient(srv.url);
  const r = await c.signIn(email);
  expect(r.location, `${email} signs in`).toBe('/panel');
  // A page of the session's, for the token its forms carry.
  await c.get('/panel');
  return c;
}

/** A vacation of the moved worker (under their SG-TEC contract) booked through the API; its code. */
async function booked(start: string, days = 6): Promise<string> {
  const r = await api.post('/api/vacaciones/add', vacationForm(MOVED.document, start, days));
  expect(r.status, r.text).toBe(201);
  return r.body.data.codigo_pila as string;
}

async function approvedByApi(code: string): Promise<void> {
  const r = await api.post('/api/vacaciones/approve', { codigoPila: code, emailUserResponsable: ADMIN });
  expect(r.status, r.text).toBe(200);
}

/** The types of the events stored about a record, in order. */
async function eventsOf(code: string): Promise<string[]> {
  const r = await db.query<{ type: string }>(`SELECT type FROM events WHERE data->>'codigoPila' = $1 ORDER BY position`, [code]);
  return r.rows.map((e) => e.type);
}

/** The worker's vacation stream's revision: a refusal leaves it where it was. */
async function workerRevision(): Promise<number> {
  const r = await db.query<{ revision: string }>('SELECT revision FROM streams WHERE stream = $1', [`worker-${MOVED.id}`]);
  return Number(r.rows[0]?.revision ?? -1);
}

const refusedForReach = (r: PanelAnswer) => {
  expect(r.status, r.body.slice(0, 300)).toBe(403);
  expect(message(r.body)).toBe(MESSAGES.notInUnits);
};

describe.skipIf(!hasServer())(`An area head's reach${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  it('refuses an SG-OPS head the approval of an SG-TEC record the vacations read model does not hold yet, and writes nothing', async () => {
    const ops = await signedIn(JEFA_OPS);
    const tec = await signedIn(JEFE_TEC);
    await db.query('BEGIN');
    let code: string;
    try {
      // Held back: the read models' runner cannot write the record until the lock is released.
      await db.query('LOCK TABLE rm_vacations IN SHARE MODE');
      code = await booked('2026-12-14');
      const held = await db.query('SELECT 1 FROM rm_vacations WHERE codigo_pila = $1', [code]);
      expect(held.rowCount, 'the read model is behind the log').toBe(0);

      const before = await workerRevision();
      const r = await ops.post(`/panel/vacaciones/${code}/aprobar`, {});
      refusedForReach(r);
      expect(await eventsOf(code)).not.toContain('VacationApproved');
      expect(await workerRevision()).toBe(before);

      // The head who answers for SG-TEC approves it all the same: the command needs no read model.
      const ok = await tec.post(`/panel/vacaciones/${code}/aprobar`, {});
      expect(ok.status).toBe(303);
      expect(await eventsOf(code)).toContain('VacationApproved');
    } finally {
      await db.query('COMMIT');
    }
    const approvals = await db.query<{ email: string }>(
      `SELECT metadata->>'userEmail' AS email FROM events WHERE type = 'VacationApproved' AND data->>'codigoPila' = $1`,
      [code],
    );
    expect(approvals.rows).toEqual([{ email: JEFE_TEC }]);
  });

  it('gives the SG-OPS head no reach through the settled SG-OPS contract: no page, no approval, interruption or deletion', async () => {
    const ops = await signedIn(JEFA_OPS);
    const tec = await signedIn(JEFE_TEC);
    const pending = await booked('2027-01-12');
    refusedForReach(await ops.get(`/panel/trabajador/${MOVED.document}`));
    const before = await workerRevision();
    refusedForReach(await ops.post(`/panel/vacaciones/${pending}/aprobar`, {}));
    // Interrupting and deleting are not a jefe's at all: refused by role before any record is read.
    for (const action of ['interrumpir', 'eliminar'])
      expect((await ops.post(`/panel/vacaciones/${pending}/${action}`, {})).status).toBe(403);
    expect(await workerRevision()).toBe(before);
    expect(await eventsOf(pending)).toEqual(['VacationCreated', 'PilaCodeAssigned', 'SlotsBooked']);

    expect((await tec.get(`/panel/trabajador/${MOVED.document}`)).status).toBe(200);
    const ok = await tec.post(`/panel/vacaciones/${pending}/aprobar`, {});
    expect(ok.status).toBe(303);
    expect(message((await tec.get(ok.location!)).body)).toBe(`Vacaciones ${pending} aprobadas.`);
  });
});

type Role = 'ninguno' | 'auditor' | 'jefe SG-OPS' | 'jefe SG-TEC' | 'administrador';
type Outcome = 'allowed' | 'refused' | 'sign-in';
const ROLES: Role[] = ['ninguno', 'auditor', 'jefe SG-OPS', 'jefe SG-TEC', 'administrador'];

/** The administrator's alone: an auditor reads, a jefe reads and approves, nothing more. */
const ADMIN_ONLY: Record<Role, Outcome> = {
  ninguno: 'sign-in',
  auditor: 'refused',
  'jefe SG-OPS': 'refused',
  'jefe SG-TEC': 'refused',
  administrador: 'allowed',
};
/** A form posted without a session: its CSRF token cannot match, so it is refused (403) before sign-in is asked for. */
const ADMIN_WRITES: Record<Role, Outcome> = { ...ADMIN_ONLY, ninguno: 'refused' };
/** Whoever reads the worker: everyone signed in but the head of the subgerencia the worker left. */
const READERS: Record<Role, Outcome> = { ...ADMIN_ONLY, auditor: 'allowed', 'jefe SG-TEC': 'allowed' };

interface Route {
  name: string;
  /** Whether the route changes the worker's stream when allowed (a refusal must leave it as it was). */
  writes: boolean;
  expected: Record<Role, Outcome>;
  send(c: PanelClient, role: Role): Promise<PanelAnswer>;
  /** What an allowed answer looks like, besides not being a refusal. */
  allowed(r: PanelAnswer): boolean;
}

describe.skipIf(!hasServer())(
  `Every role over every route that shows or acts on the moved worker${hasServer() ? '' : ' (skipped)'}`,
  () => {
    it('allows and refuses each as the role and the worker’s standing contract say, and a refusal changes nothing', async () => {
      const shown = await booked('2027-02-08');
      const forTec = await booked('2027-03-01');
      const forAdmin = await booked('2027-03-15');
      const edited = await booked('2027-04-05');
      const inCourse = await booked('2026-11-17');
      await approvedByApi(inCourse);
      const doc = MOVED.document;
      const ok = (r: PanelAnswer) => r.status === 200;
      const movedOn = (r: PanelAnswer) => r.status === 303 && !r.location!.startsWith('/panel/ingresar');

      const routes: Route[] = [
        {
          name: 'Inicio, por aprobar',
          writes: false,
          expected: READERS,
          send: (c) => c.get('/panel'),
          allowed: (r) => ok(r) && r.body.includes(shown),
        },
        {
          name: 'búsqueda por documento',
          writes: false,
          expected: READERS,
          send: (c) => c.get(`/panel/trabajador?q=${doc}`),
          allowed: (r) => r.location === `/panel/trabajador/${doc}`,
        },
        { name: 'página del trabajador', writes: false, expected: READERS, send: (c) => c.get(`/panel/trabajador/${doc}`), allowed: ok },
        { name: 'libro CSV', writes: false, expected: READERS, send: (c) => c.get(`/panel/trabajador/${doc}/libro.csv`), allowed: ok },
        {
          name: 'auditoría',
          writes: false,
          expected: READERS,
          send: (c) => c.get(`/panel/auditoria?documento=${doc}`),
          allowed: (r) => ok(r) && r.body.includes(shown),
        },
        {
          name: 'verificación',
          writes: false,
          expected: READERS,
          send: (c) => c.get(`/panel/auditoria/verificar?documento=${doc}`),
          allowed: ok,
        },
        {
          name: 'exportación de la auditoría',
          writes: false,
          expected: READERS,
          send: (c) => c.get(`/panel/auditoria/exportar?documento=${doc}&formato=csv`),
          allowed: ok,
        },
        {
          name: 'calendario',
          writes: false,
          expected: READERS,
          send: (c) => c.get('/panel/calendario?mes=2027-02'),
          allowed: (r) => ok(r) && r.body.includes('Rincón Pardo'),
        },
        {
          name: 'formulario de edición',
          writes: false,
          expected: ADMIN_ONLY,
          send: (c) => c.get(`/panel/vacaciones/${shown}/editar`),
          allowed: ok,
        },
        {
          name: 'confirmar eliminación',
          writes: false,
          expected: ADMIN_ONLY,
          send: (c) => c.get(`/panel/vacaciones/${shown}/eliminar`),
          allowed: ok,
        },
        {
          name: 'formulario de interrupción',
          writes: false,
          expected: ADMIN_ONLY,
          send: (c) => c.get(`/panel/vacaciones/${inCourse}/interrumpir`),
          allowed: ok,
        },
        {
          name: 'aprobar',
          writes: true,
          expected: { ...ADMIN_WRITES, 'jefe SG-TEC': 'allowed' },
          send: (c, role) => c.post(`/panel/vacaciones/${role === 'administrador' ? forAdmin : forTec}/aprobar`, {}),
          allowed: movedOn,
        },
        {
          name: 'interrumpir',
          writes: true,
          expected: ADMIN_WRITES,
          send: (c) => c.post(`/panel/vacaciones/${inCourse}/interrumpir`, { fechaInterrupcion: '23/11/2026', motivo: 'incapacidad' }),
          allowed: movedOn,
        },
        {
          name: 'eliminar',
          writes: true,
          expected: ADMIN_WRITES,
          send: (c) => c.post(`/panel/vacaciones/${shown}/eliminar`, {}),
          allowed: movedOn,
        },
        {
          name: 'editar',
          writes: true,
          expected: ADMIN_WRITES,
          send: (c) =>
            c.post(`/panel/vacaciones/${edited}/editar`, { vacFechaInicio: '12/04/2027', vacDiasVacaciones: '6', accion: 'registrar' }),
          allowed: movedOn,
        },
        {
          name: 'registrar',
          writes: true,
          expected: ADMIN_WRITES,
          send: (c) =>
            c.post(`/panel/trabajador/${doc}/vacaciones`, { vacFechaInicio: '03/05/2027', vacDiasVacaciones: '6', accion: 'registrar' }),
          allowed: movedOn,
        },
      ];

      const clients: Record<Role, PanelClient> = {
        ninguno: new PanelClient(srv.url),
        auditor: await signedIn(AUDITOR),
        'jefe SG-OPS': await signedIn(JEFA_OPS),
        'jefe SG-TEC': await signedIn(JEFE_TEC),
        administrador: await signedIn(ADMIN),
      };
      const seen: string[] = [];
      const wanted: string[] = [];
      // Role by role in this order, so that the refused try each write before the one allowed does it;
      // the writes in an order the worker's balance allows (the deletion gives its days back before the booking).
      for (const route of routes) {
        for (const role of ROLES) {
          const before = await workerRevision();
          const r = await route.send(clients[role], role);
          const outcome: Outcome =
            r.status === 303 && r.location?.startsWith('/panel/ingresar') ? 'sign-in' : route.allowed(r) ? 'allowed' : 'refused';
          seen.push(`${route.name} · ${role}: ${outcome}`);
          wanted.push(`${route.name} · ${role}: ${route.expected[role]}`);
          const after = await workerRevision();
          if (outcome !== 'allowed' || !route.writes) expect(after, `${route.name} · ${role} changes nothing`).toBe(before);
          else expect(after, `${route.name} · ${role} is written`).toBeGreaterThan(before);
          // A refused write is answered as such (403), never as a redirect that looks done.
          if (outcome === 'refused' && route.writes) expect(r.status, `${route.name} · ${role}`).toBe(403);
        }
      }
      expect(seen).toEqual(wanted);
    });
  },
);
