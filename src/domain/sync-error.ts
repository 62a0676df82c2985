import type { BridgeError, ErrorCode, ErrorSide } from './errors.js';

/** The error that ended a sync, as its record keeps it (GET /admin/sync/{jobId} `error`). */
export interface SyncError {
  code: ErrorCode;
  /** Which side failed: input (an operator's cancel), store, platform, source or bridge. */
  side: ErrorSide;
  message: string;
}

export function recordedError(error: BridgeError): SyncError {
  return { code: error.code, side: error.side, message: error.message };
}
