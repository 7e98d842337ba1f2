import { auditProjector } from './audit-trail/projector.ts';
import { amortizationsProjector } from './amortizations/projector.ts';
import { closuresProjector } from './closures/projector.ts';
import { contractLinksProjector } from './contract-links/projector.ts';
import { occupancyProjector } from './occupancy/projector.ts';
import { registerProjector } from './register/projector.ts';
import type { Projector } from './types.ts';
import { vacationsProjector } from './vacations/projector.ts';
import { workerStatesProjector } from './worker-states/projector.ts';

export const allProjectors: readonly Projector[] = [
  // First: its rebuild in place is the longest, and the others share the second lane meanwhile.
  workerStatesProjector,
  vacationsProjector,
  amortizationsProjector,
  contractLinksProjector,
  occupancyProjector,
  auditProjector,
  registerProjector,
  closuresProjector,
];

export const projectorNames = (): string[] => allProjectors.map((p) => p.name);

/** The named projectors (all when none are named); an unknown name throws, listing the valid ones. */
export function selectProjectors(names?: readonly string[]): Projector[] {
  if (!names || names.length === 0) return [...allProjectors];
  const unknown = names.filter((n) => !allProjectors.some((p) => p.name === n));
  if (unknown.length > 0) {
    throw new UnknownProjectorError(`unknown projection ${unknown.join(', ')}: valid names are ${projectorNames().join(', ')}`);
  }
  return allProjectors.filter((p) => names.includes(p.name));
}

export class UnknownProjectorError extends Error {
  override name = 'UnknownProjectorError';
}
