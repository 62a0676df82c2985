/** A PATCH operation (RFC 7644 §3.5.2), as the bridge sends it. */
export type PatchOperation =
  | { op: 'add'; path?: string; value: unknown }
  | { op: 'replace'; path?: string; value: unknown }
  | { op: 'remove'; path: string };
