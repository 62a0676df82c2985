import type { PatchPath } from '../../domain/scim-filter.js';

/** RFC 7644 §3.5.2: the three PATCH operations, spelled as the RFC spells them. */
export type PatchOpName = 'add' | 'replace' | 'remove';

/**
 * One PATCH operation after the dialect normaliser: the op lower-cased and every add/replace given a
 * path (a path-less value is one operation per attribute it names, RFC 7644 §3.5.2.1/§3.5.2.3).
 */
export interface PatchOperation {
  op: PatchOpName;
  path: PatchPath;
  /** The path as the client wrote it (or the attribute name it was expanded from), for details. */
  pathText: string;
  /** Absent for a remove without value. */
  value?: unknown;
  /** 1-based position of the operation in the request, for details. */
  index: number;
}

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
