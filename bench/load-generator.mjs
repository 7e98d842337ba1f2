// Load generator for the HTTP benchmarks, run as a process of its own so that generating load
// and running the orchestrator never share an event loop. Plain JavaScript: no loader needed.
//   node bench/load-generator.mjs '<json scenario>'  → prints one JSON line with the figures
import autocannon from 'autocannon';

const s = JSON.parse(process.argv[2]);
// The generated datasets' document numbers: `9` (bench/http.ts) or `8` (bench/scale.ts) and the id.
const documentOf = (id) => `${s.documentPrefix ?? '9'}${String(id).padStart(9, '0')}`;
const form = (doc, start, days) =>
  new URLSearchParams({
    documentoAsociado: doc,
    vacFechaInicio: start,
    vacDiasVacaciones: String(days),
    emailUserResponsable: 'admin@empresa.co',
  }).toString();
const headers = { 'x-api-key': `Bearer ${s.key}`, 'content-type': 'application/x-www-form-urlencoded' };
const starts = ['2026-03-02', '2026-03-16', '2026-04-06', '2026-04-20', '2026-05-04', '2026-05-19', '2026-06-01', '2026-06-16'];

function request(n) {
  // Each worker in turn, or (pick: 'random') any of them with the same chance every time.
  const worker = s.first + (s.pick === 'random' ? Math.floor(Math.random() * s.workers) : n % s.workers);
  switch (s.kind) {
    case 'hello':
      return { method: 'GET', path: '/' };
    case 'calculate':
      return { method: 'POST', path: '/api/vacaciones/calculate', headers, body: form(documentOf(worker), '2026-03-02', 10) };
    case 'consult':
      return {
        method: 'GET',
        path: `/api/vacaciones/consultdatavacations?numeroDocumento=${documentOf(worker)}&emailResponsable=admin@empresa.co`,
        headers: { 'x-api-key': headers['x-api-key'] },
      };
    case 'add': {
      // Each worker once per round; later rounds move on so that nothing overlaps.
      const start = starts[Math.floor(n / s.workers) % starts.length];
      return { method: 'POST', path: '/api/vacaciones/add', headers, body: form(documentOf(worker), start, 6) };
    }
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
    errors: result.errors + result.timeouts,
    statuses,
  }),
);
