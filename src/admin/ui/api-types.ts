import type { z } from 'zod';
import type { ConflictResolveBody as ResolveBody } from '../schemas/conflicts.schema.js';
import type { FailureRetryBody as RetryBody } from '../schemas/failures.schema.js';
import type { ErrorBody as ErrorAnswer } from '../schemas/shapes.js';
import type { SyncStartBody as StartBody } from '../schemas/sync.schema.js';

/**
 * The admin API's shapes as the dashboard's JSDoc reads them (public/*.js, type-checked by
 * ui/tsconfig.json): the types of the zod schemas the API parses with and builds its answers by
 * (schemas/), so a dashboard that reads a field the API does not send fails `npm run typecheck`.
 * Types only: nothing here is served or run.
 */

/** The `error` of the JSON error body. */
export type ErrorBody = ErrorAnswer['error'];
export type { Conflict, ConflictList, ConflictParty } from '../schemas/conflicts.schema.js';
/** What POST /admin/conflicts/{id}/resolve takes. */
export type ConflictResolveBody = z.input<typeof ResolveBody>;
export type { Failure, FailureList, FailureRetry } from '../schemas/failures.schema.js';
/** What POST /admin/failures/retry takes. */
export type FailureRetryBody = z.input<typeof RetryBody>;
export type { HistoryEntry, Identity as IdentityTrace, StoredError } from '../schemas/identity.schema.js';
export type { LinkCounts, LinkOnly, OwnedElsewhere } from '../schemas/plan-inputs.schema.js';
export type { AttributeRow, MemberRow, PlatformCopy } from '../schemas/platform-copy.schema.js';
export type { IdentityCounts, InputStatus, Status, TargetHealth } from '../schemas/status.schema.js';
export type {
  ChangesAction as Action,
  SyncChange as Change,
  SyncChanges as ChangePage,
} from '../schemas/sync-changes.schema.js';
export type {
  PreviewEntry,
  PreviewSummary,
  SyncPreviewPage as PreviewPage,
} from '../schemas/sync-preview.schema.js';
export type { KindCounts, PlanSource, Removals, SyncPlan, SyncSummary } from '../schemas/sync-plan.schema.js';
export type {
  SyncList,
  SyncProgressEvent as ProgressEvent,
  SyncStarted,
  SyncView,
} from '../schemas/sync.schema.js';
/** What POST /admin/sync takes as JSON. */
export type SyncStartBody = z.input<typeof StartBody>;
