import { performance } from 'node:perf_hooks';
import client from 'prom-client';
import type { HttpMetrics } from './app/context.ts';
import type { AppendResult, EventStore, ReadByStreamOptions, StreamWrite } from './store/types.ts';

/** Prometheus figures of one service instance, on a registry of its own (tests build several). */
export class Metrics implements HttpMetrics {
  readonly registry = new client.Registry();
  private readonly requests: client.Counter<'route' | 'method' | 'status'>;
  private readonly latency: client.Histogram<'route' | 'method'>;
  private readonly commands: client.Counter<'command' | 'outcome'>;
  readonly appendLatency: client.Histogram<'store'>;
  readonly conflicts: client.Counter<'stream_kind'>;

  constructor(
    projectionLag?: () => Promise<{ name: string; lag: number }[]>,
    deadLetters?: () => Promise<{ name: string; count: number }[]>,
  ) {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'vacaciones_' });
    this.requests = new client.Counter({
      name: 'vacaciones_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [this.registry],
    });
    this.latency = new client.Histogram({
      name: 'vacaciones_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.commands = new client.Counter({
      name: 'vacaciones_commands_total',
      help: 'Commands by outcome (ok, rules, approved, record_not_found, busy, ...)',
      labelNames: ['command', 'outcome'],
      registers: [this.registry],
    });
    this.appendLatency = new client.Histogram({
      name: 'vacaciones_event_store_append_seconds',
      help: 'Event store append latency',
      labelNames: ['store'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [this.registry],
    });
    this.conflicts = new client.Counter({
      name: 'vacaciones_stream_conflicts_total',
      help: 'Appends that lost a race on a stream and were decided again',
      labelNames: ['stream_kind'],
      registers: [this.registry],
    });
    // With process_cpu_seconds_total, what tells an instance that is out of time (its one thread
    // busy most of a second: more instances or cores will help) from one that waits on its database.
    let counted = 0;
    new client.Counter({
      name: 'vacaciones_nodejs_eventloop_active_seconds_total',
      help: 'Time the event loop spent running callbacks rather than waiting for I/O (its utilization is the rate of this)',
      registers: [this.registry],
      collect() {
        const active = performance.eventLoopUtilization().active / 1000;
        this.inc(active - counted);
        counted = active;
      },
    });
    if (projectionLag) {
      new client.Gauge({
        name: 'vacaciones_projection_lag_events',
        help: 'Events not yet applied, per projector',
        labelNames: ['projector'],
        registers: [this.registry],
        async collect() {
          for (const p of await projectionLag()) this.set({ projector: p.name }, p.lag);
        },
      });
    }
    if (deadLetters) {
      new client.Gauge({
        name: 'vacaciones_webhook_dead_letters',
        help: 'Events a webhook subscription gave up on after retrying for the whole window',
        labelNames: ['webhook'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const w of await deadLetters()) this.set({ webhook: w.name }, w.count);
        },
      });
    }
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route, method }, seconds);
  }

  commandOutcome(command: string, outcome: string): void {
    this.commands.inc({ command, outcome });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The same store, with every append timed. */
export function timedStore(store: EventStore, metrics: Metrics): EventStore {
  const timed =
    (append: (writes: StreamWrite[]) => Promise<AppendResult>) =>
    async (writes: StreamWrite[]): Promise<AppendResult> => {
      const end = metrics.appendLatency.startTimer({ store: store.name });
      try {
        return await append(writes);
      } finally {
        end();
      }
    };
  return {
    name: store.name,
    append: timed((writes) => store.append(writes)),
    appendAny: timed((writes) => store.appendAny(writes)),
    readStream: (stream, opts) => store.readStream(stream, opts),
    readStreams: (requests) => store.readStreams(requests),
    readAll: (opts) => store.readAll(opts),
    ...(store.readByStream ? { readByStream: (opts: ReadByStreamOptions) => store.readByStream!(opts) } : {}),
    headPosition: () => store.headPosition(),
    countAfter: (after, opts) => store.countAfter(after, opts),
    logDatabase: () => store.logDatabase(),
    claimAppend: (tx) => store.claimAppend(tx),
    existingStreams: (tx, streams) => store.existingStreams(tx, streams),
    prepareImport: (writes) => store.prepareImport(writes),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
