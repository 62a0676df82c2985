import type { ErrorBody as ErrorAnswer } from '../schemas/shapes.js';

/**
 * The admin API's shapes as the dashboard's JSDoc reads them (public/*.js, type-checked by
 * ui/tsconfig.json): the types of the zod schemas the API parses with and builds its answers by
 * (schemas/), so a dashboard that reads a field the API does not send fails `npm run typecheck`.
 * Types only: nothing here is served or run.
 */

/** The `error` of the JSON error body. */
export type ErrorBody = ErrorAnswer['error'];
export type { Conflict, ConflictList, ConflictParty } from '../schemas/conflicts.schema.js';
export type { Failure, FailureList } from '../schemas/failures.schema.js';
export type { HistoryEntry, Identity as IdentityTrace, StoredError } from '../schemas/identity.schema.js';
export type { LinkCounts, LinkOnly, OwnedElsewhere } from '../schemas/plan-inputs.schema.js';
export type { AttributeRow, MemberRow, PlatformCopy } from '../schemas/platform-copy.schema.js';
export type { IdentityCounts, Status, TargetHealth } from '../schemas/status.schema.js';
export type {
  ChangesAction as Action,
  SyncChange as Change,
  SyncChanges as ChangePage,
} from '../schemas/sync-changes.schema.js';
export type { KindCounts, PlanSource, Removals, SyncPlan, SyncSummary } from '../schemas/sync-plan.schema.js';
export type { SyncProgressEvent as ProgressEvent, SyncView } from '../schemas/sync.schema.js';
