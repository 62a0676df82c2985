/**
 * scim-reference-target: an in-process emulation of the platform's SCIM 2.0 API (`/api/scim/v2`)
 * with scripted faults, a request recorder and a control API (`/__control`).
 */

export {
  startReferenceTarget,
  type ReferenceTarget,
  type ReferenceTargetOptions,
} from './reference-target.js';
export type { TargetState, UserInput, GroupInput } from './target-state.js';
export type { FaultControls } from './fault-controls.js';
export type {
  ErrorRateFault,
  FaultName,
  FaultSettings,
  LatencyFault,
  OutageFault,
  OutageMode,
  RateLimitFault,
} from './faults.js';
export type { RecordedRequest, StatsOptions, TargetStats } from './recorder.js';
export type { RequestLogger } from './request-log.js';
export { isScimError, ScimError, type ScimErrorType } from './target-errors.js';
export type {
  ScimEmail,
  ScimGroup,
  ScimMember,
  ScimMeta,
  ScimName,
  ScimUser,
  ResourceType,
} from './scim-types.js';
export { CONTROL_BASE_PATH, SCIM_BASE_PATH } from './target-app.js';
