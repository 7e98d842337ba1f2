import { describe, expect, it } from 'vitest';
import { Vouch } from '../../../src/caching/vouch.ts';
import type { DecodedEvent } from '../../../src/events/codec.ts';
import type { DomainEvent } from '../../../src/events/types.ts';
import { vouchForMonths } from '../../../src/projections/occupancy/vouch.ts';
import type { ProjectionService, ProjectionWatcher } from '../../../src/projections/runtime/service.ts';

/** The part of the projection service the vouch watches: its watchers, and whether the occupancy runner applies here. */
function fakeService(applying: boolean) {
  const watchers: ProjectionWatcher[] = [];
  const service = {
    applying,
    watch: (w: ProjectionWatcher) => watchers.push(w),
    isApplying: (name: string) => name === 'occupancy' && service.applying,
  };
  return { service, watchers, projections: service as unknown as ProjectionService };
}

const decoded = (event: DomainEvent) => ({ event }) as DecodedEvent;
const slots = decoded({
  type: 'SlotsBooked',
  data: { codigoPila: 'VAC_1', workerId: 1, subgerenciaId: 'SG-1', startDate: '2026-03-02', endDate: '2026-03-09' },
});
const approval = decoded({
  type: 'VacationApproved',
  data: { codigoPila: 'VAC_1', workerId: 1, approvedByUserId: 1, approvedAt: '2026-03-01T00:00:00Z' },
});

describe("the occupancy runner's vouch for the months calculate reads", () => {
  it('holds from the start when the runner was already applying, and is voided by a batch that moves places', () => {
    const { watchers, projections } = fakeService(true);
    const vouch = new Vouch();
    vouchForMonths(projections, vouch);
    const first = vouch.now;
    expect(first).toBeDefined();
    watchers[0]!.applied('occupancy', [approval]);
    expect(vouch.now).toBe(first);
    // Another read model's batch says nothing about the months.
    watchers[0]!.applied('vacations', [slots]);
    expect(vouch.now).toBe(first);
    watchers[0]!.applied('occupancy', [approval, slots]);
    expect(vouch.now).not.toBe(first);
  });

  it('is voided whenever the runner changes, even where it goes on applying (a checkpoint moved under it)', () => {
    const { service, watchers, projections } = fakeService(false);
    const vouch = new Vouch();
    vouchForMonths(projections, vouch);
    expect(vouch.now).toBeUndefined();
    service.applying = true;
    watchers[0]!.changed('occupancy');
    const running = vouch.now;
    expect(running).toBeDefined();
    watchers[0]!.changed('occupancy');
    expect(vouch.now).toBeDefined();
    expect(vouch.now).not.toBe(running);
    service.applying = false;
    watchers[0]!.changed('occupancy');
    expect(vouch.now).toBeUndefined();
  });
});
