export * from './types.ts';
export { allProjectors, projectorNames, selectProjectors, UnknownProjectorError } from './runtime/registry.ts';
export { ensureProjectionTables } from './runtime/tables.ts';
export { readCheckpoint, readCheckpoints } from './runtime/checkpoints.ts';
export { ProjectionRunner, type RunnerState, type RunnerOptions } from './runtime/runner.ts';
export { ProjectionService, type ProjectionServiceOptions, type ProjectorStatus } from './runtime/service.ts';
export {
  rebuild,
  RebuildBusyError,
  REBUILD_SUFFIX,
  type RebuildOptions,
  type RebuildProgress,
  type RebuildResult,
} from './runtime/rebuild.ts';
export { projectionOverview, type ProjectionOverview } from './runtime/status.ts';
export { vacationsProjector, VACATIONS_TABLE } from './vacations/projector.ts';
export * from './vacations/queries.ts';
export { amortizationsProjector, AMORTIZATIONS_TABLE } from './amortizations/projector.ts';
export * from './amortizations/queries.ts';
export { contractLinksProjector, CONTRACT_LINKS_TABLE } from './contract-links/projector.ts';
export * from './contract-links/queries.ts';
export { availabilityProjector, AVAILABILITY_TABLE, AVAILABILITY_RECORDS_TABLE } from './availability/projector.ts';
export * from './availability/queries.ts';
export { occupancyProjector, OCCUPANCY_TABLE } from './occupancy/projector.ts';
export * from './occupancy/queries.ts';
export { auditProjector, AUDIT_TABLE, type AuditAction } from './audit/projector.ts';
export * from './audit/queries.ts';
export { registerProjector, REGISTER_TABLE } from './register/projector.ts';
export * from './register/queries.ts';
