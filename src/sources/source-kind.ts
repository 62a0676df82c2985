import type { z } from 'zod';
import type { ApiMetrics } from '../api-client/api-metrics.js';
import type { SectionSettings } from '../config/catalog.js';
import type { Owner } from '../domain/desired-change.js';
import type { CompiledPolicy } from '../domain/identity-policy.js';
import type { DeltaSource } from '../domain/input.js';
import type { Logger } from '../ops/logger.js';
import type { DirectorySource } from './directory/directory-source.js';

/**
 * A directory source kind as a plug-in (SPEC §5.4, §5.5): what the input registry
 * (src/sources/registry.ts) knows of it. Its folder brings its settings — the zod shape of its
 * section under a directory, the variables of the first directory's, its secrets and its rules —
 * and how a configured directory's source is built. The configuration schema and settings table,
 * check-config, status, the CLI's and dashboard's lists and Helm's values schema derive from it.
 */
export interface DirectorySourceKind<S extends z.ZodObject = z.ZodObject> {
  readonly settings: SectionSettings<S>;
  /** How lists and messages name the kind (`LDAP / Active Directory`). */
  readonly title: string;
  /**
   * The source a full read, a preview and a provision on demand read. Settings only building can
   * check throw BridgeError `invalid_input` (at start-up, and in check-config).
   */
  build(settings: z.output<S>, context: SourceContext): DirectorySource;
  /** Its read of what changed since a watermark, when the kind has one under these settings. */
  changes?(settings: z.output<S>, context: SourceContext): DeltaSource | undefined;
}

/** What a directory gives its source when it builds it. */
export interface SourceContext {
  /** The directory's name, and the owner of its identities (`directory:<name>`). */
  readonly name: string;
  readonly owner: Owner;
  /** The scopes and mappings a read must serve: the active one, or a preview's two. */
  readonly policies: readonly CompiledPolicy[];
  /** A secret of its settings as it is now: re-read from its file when that changes. */
  secret(key: string): () => string;
  readonly logger?: Logger;
  /** Per-request timeout of HTTP sources (tests shorten it). */
  readonly timeoutMs?: number;
  /** Requests to the APIs the source reads, counted under its input (api-client/api-metrics.ts). */
  readonly metrics?: ApiMetrics;
}

/** A directory source kind, typed by its own settings (the registry lists them untyped). */
export function directorySourceKind<S extends z.ZodObject>(
  kind: DirectorySourceKind<S>,
): DirectorySourceKind {
  return kind as unknown as DirectorySourceKind;
}
