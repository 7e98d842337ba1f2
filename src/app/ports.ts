/**
 * What the faces (src/http, src/panel) take from the layers under the application, named once
 * here so that they reach the command side and the event store only through src/app: the caller
 * as the events record it, a vacation's figures, an audited query's record, and the event log's
 * positions as the interface writes them.
 */
export type { Actor, VacationFigures } from '../commands/types.ts';
export { recordAudit } from '../commands/audit.ts';
export { START, positionToString, type StoredEvent } from '../store/types.ts';
