// Load generator for the HTTP benchmarks, run as a process of its own so that generating load
// and running the orchestrator never share an event loop. Plain JavaScript: no loader needed.
//   node bench/load-generator.mjs '<json scenario>'  → prints one JSON line with the figures
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const s = JSON.parse(process.argv[2]);
// The generated datasets' document numbers: `9` (bench/http.ts) or `8` (bench/scale.ts) and the id.
const documentOf = (id) => `${s.documentPrefix ?? '9'}${String(id).padStart(9, '0')}`;
const form = (doc, start, days, compensated) =>
  new URLSearchParams({
    documentoAsociado: doc,
    vacFechaInicio: start,
    vacDiasVacaciones: String(days),
    vacCompensado: compensated ? '1' : '0',
    emailUserResponsable: 'admin@empresa.co',
  }).toString();
const headers = { 'x-api-key': `Bearer ${s.key}`, 'content-type': 'application/x-www-form-urlencoded' };
// calculate and add send the requests bench/data.ts planned: [document, start, days, compensated].
const plan = s.plan ? JSON.parse(readFileSync(s.plan, 'utf8')) : undefined;
const planned = (n) => {
  const entry = plan[s.first + (s.pick === 'random' ? Math.floor(Math.random() * s.workers) : n % s.workers)];
  return form(...entry);
};

function request(n) {
  // Each worker in turn, or (pick: 'random') any of them with the same chance every time.
  const worker = s.first + (s.pick === 'random' ? Math.floor(Math.random() * s.workers) : n % s.workers);
  switch (s.kind) {
    case 'hello':
      return { method: 'GET', path: '/' };
    case 'calculate':
      return { method: 'POST', path: '/api/vacaciones/calculate', headers, body: planned(n) };
    case 'consult':
      return {
        method: 'GET',
        path: `/api/vacaciones/consultdatavacations?numeroDocumento=${documentOf(worker)}&emailResponsable=admin@empresa.co`,
        headers: { 'x-api-key': headers['x-api-key'] },
      };
    case 'add':
      // Each planned creation once, in the plan's order (valid in any order: see bench/data.ts).
      return { method: 'POST', path: '/api/vacaciones/add', headers, body: planned(n) };
    case 'page': {
      // A panel page, signed in (or, without a cookie, an API read with the key): {doc} is a
      // worker's document, {unit} and {month} go round the lists given, {q} round the searches given.
      const pick = (list) => list[n % list.length];
      const path = s.path
        .replace('{doc}', documentOf(worker))
        .replace('{unit}', () => encodeURIComponent(pick(s.units)))
        .replace('{month}', () => pick(s.months))
        .replace('{q}', () => encodeURIComponent(pick(s.queries)));
      return { method: 'GET', path, headers: s.cookie ? { cookie: s.cookie } : { 'x-api-key': headers['x-api-key'] } };
    }
    default:
      throw new Error(`unknown scenario ${s.kind}`);
  }
}

let n = 0;
const result = await autocannon({
  url: s.url,
  connections: s.connections,
  // A fixed number of requests (a warm-up pass over every worker) or a fixed time.
  ...(s.amount ? { amount: s.amount } : { duration: s.durationSec }),
  requests: [{ setupRequest: (req) => ({ ...req, ...request(n++) }) }],
});
const ok = Object.entries(result.statusCodeStats ?? {}).reduce(
  (sum, [code, v]) => sum + ((s.okStatus ? Number(code) === s.okStatus : code.startsWith('2')) ? v.count : 0),
  0,
);
const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, v.count]));
console.log(
  JSON.stringify({
    requestsPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    // Refusals (422) are answers of the service, counted apart from the other non-2xx answers.
    refused: result.statusCodeStats?.['422']?.count ?? 0,
    errors: result.errors + result.timeouts,
    statuses,
  }),
);
