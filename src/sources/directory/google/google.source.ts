import type { PolicyKind } from '../../../domain/identity-policy.js';
import type { Snapshot } from '../../../domain/identity.js';
import type { SnapshotSink } from '../../../domain/snapshot-sink.js';
import type { OneRead } from '../../../domain/source-identity.js';
import { collectSnapshot } from '../collect-snapshot.js';
import type { DirectorySource, ReadOptions, SourceCheck } from '../directory-source.js';
import type { GoogleAccess } from './google-api.js';
import { checkGoogle } from './google-check.js';
import { streamGoogle } from './google-full-read.js';
import type { GoogleNeeds } from './google-items.js';
import { readGoogleOne } from './google-read-one.js';

/**
 * The `google` directory source (SPEC §5.5): Google Workspace through the Admin SDK's Directory
 * API, read in full (google-full-read.ts), one user or group at a time (google-read-one.ts), and
 * checked for check-config (google-check.ts). Its change reads are google-audit.delta.ts.
 */
export class GoogleDirectorySource implements DirectorySource {
  /** Each user's groups are attached as facts when a scope or mapping reads them. */
  readonly attachesMembership = true;

  constructor(
    private readonly access: GoogleAccess,
    private readonly needs: GoogleNeeds,
  ) {}

  get label(): string {
    return this.access.label;
  }

  read(options: ReadOptions = {}): Promise<Snapshot> {
    return collectSnapshot(this, options);
  }

  stream(sink: SnapshotSink, options: ReadOptions = {}): Promise<void> {
    return streamGoogle(this.access, this.needs, sink, options);
  }

  readOne(kind: PolicyKind, key: string, options: ReadOptions = {}): Promise<OneRead> {
    return readGoogleOne(this.access, this.needs, kind, key, options.signal);
  }

  check(): Promise<SourceCheck[]> {
    return checkGoogle(this.access);
  }
}
