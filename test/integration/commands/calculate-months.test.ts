import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleMessages } from '../../../src/app/rule-messages.ts';
import { Vouch } from '../../../src/caching/vouch.ts';
import { commandEvents, type VacationCommands } from '../../../src/commands/vacation-commands.ts';
import { ProjectionService } from '../../../src/projections/index.ts';
import { vouchForMonths } from '../../../src/projections/occupancy/vouch.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { EventStore } from '../../../src/store/types.ts';
import { ADMIN_ACTOR as actor, commandsOver, vacationRequest } from '../../support/commands.ts';
import { documentOf, generateDataset } from '../../support/dataset.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

describe('calculate under a limit of people: the months as current as the read models', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let projections: ProjectionService;
  /** This instance, whose occupancy runner vouches for the months it holds. */
  let here: VacationCommands;
  /** Another instance of the service, on the same database. */
  let elsewhere: VacationCommands;
  let monthReads = 0;

  const calculate = (worker: number, startDate: string) => here.calculate(documentOf(100_000 + worker), vacationRequest(startDate, 6));
  const book = async (commands: VacationCommands, worker: number, startDate: string) =>
    expect((await commands.create(documentOf(100_000 + worker), vacationRequest(startDate, 6), actor)).ok).toBe(true);

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, generateDataset({ workers: 8, maxPeople: 2 }));
    store = new PostgresEventStore(t.db);
    const counting: EventStore = new Proxy(store, {
      get: (target, prop) =>
        prop === 'readStreams'
          ? (r: { stream: string; fromRevision: number }[]) => {
              if (r.some((x) => x.stream.startsWith('unit-'))) monthReads++;
              return target.readStreams(r);
            }
          : Reflect.get(target, prop, target),
    });
    projections = new ProjectionService(t.db, store, { logger: quiet, idleMs: 10 });
    await projections.start();
    for (let i = 0; i < 500 && !projections.isApplying('occupancy'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(projections.isApplying('occupancy')).toBe(true);
    expect(await projections.waitFor(await store.headPosition(), 5_000)).toBe(true);
    // Watched once the runner is under way, as the service does.
    const vouch = new Vouch();
    vouchForMonths(projections, vouch);
    here = commandsOver(t.db, counting, { events: commandEvents(counting, { vouch }) });
    elsewhere = commandsOver(t.db, store);
  });
  afterAll(async () => {
    await projections?.stop();
    await t?.drop();
  });

  it('answers from memory once the months are read, until the runner applies a change of places', async () => {
    expect((await calculate(0, '2026-03-02')).ok).toBe(true);
    monthReads = 0;
    expect((await calculate(1, '2026-03-02')).ok).toBe(true);
    expect((await calculate(2, '2026-03-03')).ok).toBe(true);
    expect(monthReads).toBe(0);
    // A vacation paid in money books no place: the months stay vouched for.
    expect((await elsewhere.create(documentOf(100_007), vacationRequest('2026-06-01', 2, { compensated: true }), actor)).ok).toBe(true);
    expect(await projections.waitFor(await store.headPosition(), 5_000)).toBe(true);
    expect((await calculate(1, '2026-03-02')).ok).toBe(true);
    expect(monthReads).toBe(0);
  });

  it("sees another instance's bookings once the read models include them", async () => {
    await book(elsewhere, 2, '2026-03-02');
    await book(elsewhere, 3, '2026-03-02');
    expect(await projections.waitFor(await store.headPosition(), 5_000)).toBe(true);
    const r = await calculate(0, '2026-03-02');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.kind === 'rules' && ruleMessages(r.violations).join(' ')).toMatch(
      /Se alcanzó el máximo de 2 personas de vacaciones al mismo tiempo en la subgerencia SG-1/,
    );
    expect(monthReads).toBeGreaterThan(0);
  });

  it('sees its own bookings as soon as they are acknowledged, without waiting for the runner', async () => {
    expect((await calculate(0, '2026-04-06')).ok).toBe(true);
    await book(here, 4, '2026-04-06');
    await book(here, 5, '2026-04-06');
    const r = await calculate(0, '2026-04-06');
    expect(!r.ok && r.kind === 'rules' && ruleMessages(r.violations).join(' ')).toMatch(/Se alcanzó el máximo de 2 personas/);
  });
});
