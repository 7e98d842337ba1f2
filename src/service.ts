import { SHARED_PARTS } from './caching/worker-file-entry.ts';
import type { FastifyInstance } from 'fastify';
import { BatchedAppender } from './caching/batched-appender.ts';
import { VacationCommands, commandEvents } from './commands/vacation-commands.ts';
import { ClosureCommands } from './commands/closures.ts';
import { PlanBooking } from './commands/plan-booking.ts';
import { unknownInScope, workerFilesByDocuments, workerFilesInScope, workersChangedAmong } from './reference/worker-files.ts';
import type { Config } from './config/config.ts';
import { migrate } from './migrations.ts';
import { openDb } from './db/open.ts';
import type { Db } from './db/types.ts';
import { holidayCalendar } from './config/holidays.ts';
import { todayInBogota } from './domain/index.ts';
import { buildServer } from './server.ts';
import { checkReadiness } from './store/readiness.ts';
import { KnownWorkerReads } from './caching/known-worker.ts';
import type { Logger } from './logger.ts';
import { WebhookDeliverer } from './integration/webhooks/deliverer.ts';
import { PeriodWatchSweeper } from './projections/reports/period-watch.ts';
import { deadLetterCounts } from './integration/webhooks/repository.ts';
import { Metrics, timedStore } from './metrics.ts';
import { ProjectionService, projectionStatus } from './projections/index.ts';
import type { BulkStartOptions } from './projections/runtime/bulk-start.ts';
import { REBUILD_SUFFIX } from './projections/runtime/rebuild.ts';
import { rebuildInProcessOfItsOwn } from './rebuild-process.ts';
import { readSideOf } from './projections/read-side.ts';
import { vouchForMonths } from './projections/occupancy/vouch.ts';
import { Vouch } from './caching/vouch.ts';
import { CachedReferenceRepository } from './caching/cached-reference.ts';
import { ApiKeyCache } from './security/api-key-cache.ts';
import { PostgresChangeFeed, localChangeFeed, type ChangeFeed } from './db/change-feed.ts';
import { PostgresLiveness, localLiveness, type InstanceLiveness } from './db/instance-liveness.ts';
import { openEventStore } from './store/open.ts';
import { idsInBlocks, nextRecordIds } from './store/record-ids.ts';
import type { EventStore, Position, StreamWrite } from './store/types.ts';

export interface Service {
  app: FastifyInstance;
  db: Db;
  store: EventStore;
  projections: ProjectionService | undefined;
  /** Drains requests, stops projectors at a batch boundary, closes connections. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Run the projectors in this process (default true). */
  projections?: boolean;
  /** The real clock, for event times and PILA codes (default the system's); tests pass their own. */
  now?: () => Date;
  /** Deliver webhooks from this process (default true). */
  webhooks?: boolean;
  /** When the start rebuilds read models far behind the log (default BULK_START; false: never). */
  bulkStart?: BulkStartOptions | false;
}

/** Builds the whole service (database, event store, commands, projections, HTTP) without listening. */
export async function createService(config: Config, logger: Logger, opts: ServiceOptions = {}): Promise<Service> {
  const calendar = holidayCalendar(config);
  const db = await openDb(config, config.databasePoolSize, {
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    lockTimeoutMs: config.databaseLockTimeoutMs,
  });
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  const { batching } = config;
  const rawStore = await openEventStore(config, db, { batching });
  let projections: ProjectionService | undefined;
  const metrics = new Metrics(
    async () => (projections ? (await projections.status()).map((s) => ({ name: s.name, lag: s.lag })) : []),
    () => deadLetterCounts(db),
  );
  const store = timedStore(rawStore, metrics);
  const reference = new CachedReferenceRepository(db, { batching });
  let apiKeys: ApiKeyCache | undefined;
  let feed: ChangeFeed = localChangeFeed;
  if (config.databaseUrl) {
    feed = await PostgresChangeFeed.start(
      config.databaseUrl,
      (topic) => {
        if (topic !== 'reference') apiKeys?.invalidate();
        if (topic !== 'api_keys') reference.invalidate();
      },
      logger,
    );
  }
  apiKeys = new ApiKeyCache(db, feed);
  const liveness: InstanceLiveness = config.databaseUrl ? await PostgresLiveness.start(config.databaseUrl, db, logger) : localLiveness();
  const today = () => config.today ?? todayInBogota(new Date());
  // The holiday tables load at their first question, a noticeable wait: taken here,
  // before the service listens, rather than by the first request that counts a business day.
  calendar.holidaysOf(Number(today().slice(0, 4)));

  // Without runners here (--no-projections), the service still reads the checkpoints that the
  // instances running them write, for read-your-writes and for /metrics.
  projections = new ProjectionService(db, rawStore, {
    logger: logger.child({ component: 'projections' }),
    batching,
    bulkStart: opts.bulkStart,
    // PGlite is this process's alone: a rebuild on it runs here.
    bulkRebuild: db.kind === 'postgres' ? rebuildInProcessOfItsOwn(config, logger) : undefined,
  });
  if (opts.projections !== false) {
    await projections.start();
    // Queries read the read models: let them catch up with the log before taking traffic
    // (bounded, so that a long rebuild elsewhere cannot keep the service from starting).
    const head = await rawStore.headPosition();
    if (!(await projections.waitFor(head, 30_000))) {
      logger.warn('read models are still catching up with the event log; serving anyway');
    }
  }
  const auditAppender = new BatchedAppender(store, batching ? undefined : 1);
  const readSide = readSideOf(db, projections, logger, { batching });
  // Every audited query's record, whoever stores it, is then waited for by the trail's next read.
  const audits = {
    append: async (writes: StreamWrite[]): Promise<Position> => {
      const position = await auditAppender.append(writes);
      readSide.noteAudit(position);
      return position;
    },
  };
  // calculate reads the subgerencias' months from memory while the occupancy runner here vouches for them.
  const months = new Vouch();
  vouchForMonths(projections, months);
  const knownWorkers = new KnownWorkerReads(
    (documentNumber) => reference.workerFileByDocument(documentNumber),
    (workerId) => readSide.workerStateOf(workerId),
  );
  const events = commandEvents(store, { batching, vouch: months });
  const nextRecordId = idsInBlocks((n) => nextRecordIds(db, n));
  const commands = new VacationCommands({
    store,
    events,
    reference,
    // calculate is a query: it reads the read model of folded states, not the stream.
    fileAndState: (documentNumber) => knownWorkers.read(documentNumber),
    calendar,
    today,
    now: opts.now,
    nextRecordId,
    onConflict: (stream) => metrics.conflicts.inc({ stream_kind: stream.split('-')[0]! }),
  });
  const closures = new ClosureCommands({
    events,
    reference: {
      // A company contract's closure may hold every worker's row at once: shared parts keep it small.
      filesInScope: (scope) => workerFilesInScope(db, scope, SHARED_PARTS),
      version: () => reference.version(),
      changedSince: (version, ids) => workersChangedAmong(db, version, ids),
      unknownIn: (scope) => unknownInScope(db, scope),
    },
    calendar,
    today,
    now: opts.now,
    nextRecordId,
    headPosition: () => rawStore.headPosition(),
  });
  const planBooking = new PlanBooking({
    events,
    // A plan holds hundreds of lines: their files come in one query, not one lookup each.
    reference: { filesByDocuments: (documentNumbers) => workerFilesByDocuments(db, documentNumbers, SHARED_PARTS) },
    calendar,
    today,
    now: opts.now,
    nextRecordId,
  });

  const app = await buildServer(
    {
      config,
      db,
      store,
      reference,
      commands,
      closures,
      planBooking,
      audits,
      readSide,
      // Only the runner that applies the vacations read model here hears of appends at once.
      nextAppend: (ms) => (projections!.isApplying('vacations') ? projections!.nextCommit(ms) : undefined),
      liveness,
      verifyApiKey: (key) => apiKeys.verify(key),
      today,
      calendar,
      now: opts.now,
      metrics,
      metricsText: () => metrics.text(),
      checkReady: () => checkReadiness(db, rawStore, { skipSuffixes: [REBUILD_SUFFIX] }),
      projectionStatus: () => projectionStatus(db, rawStore, opts.projections === false ? undefined : projections),
    },
    { logger },
  );

  // The instances that project also figure the company's periods for the panel, one at a time.
  const sweeper = new PeriodWatchSweeper(db, {
    today,
    calendar,
    onError: (err) => logger.error({ err }, 'the sweep of the accrual periods failed; it is tried again'),
    onFinished: (ms) => logger.info({ ms: Math.round(ms) }, 'the accrual periods of every worker were figured for the panel'),
  });
  if (opts.projections !== false) sweeper.start();

  // Every instance delivers webhooks; a lock per subscription keeps each to one of them.
  const deliverer = new WebhookDeliverer(db, rawStore, {
    contractsOf: async (doc) => (await reference.workerFileByDocument(doc))?.contracts ?? [],
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivate,
    retryBaseMs: config.webhookRetryBaseMs,
    giveUpAfterMs: config.webhookGiveUpAfterS * 1000,
    logger: logger.child({ component: 'webhooks' }),
    wake: (ms) => (projections!.isApplying('vacations') ? projections!.nextCommit(ms) : undefined),
  });
  if (opts.webhooks !== false) deliverer.start();

  let closed = false;
  return {
    app,
    db,
    store: rawStore,
    projections,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await deliverer.stop();
      await sweeper.stop();
      await auditAppender.drain();
      if (opts.projections !== false) await projections?.stop();
      await feed.close();
      await liveness.close();
      await rawStore.close();
      await db.close();
    },
  };
}
