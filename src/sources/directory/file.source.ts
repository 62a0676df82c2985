import { readFile } from 'node:fs/promises';
import { BridgeError } from '../../domain/errors.js';
import type { Snapshot } from '../../domain/identity.js';
import { checkSnapshot, countProblems, type SnapshotCheck } from '../../domain/snapshot.js';
import type { DirectorySource, ReadOptions } from './directory-source.js';
import { JsonSyntaxError, readSnapshotBytes } from './json-snapshot-reader.js';

/**
 * The `file` directory source: a JSON snapshot file (SPEC §5.4) read again at every full sync, so
 * that whatever writes it (an HR export, a script) only has to replace it — preferably by writing a
 * new file and renaming it over the old one, so that a sync never reads half a file. The file is
 * read item by item (json-snapshot-reader.ts): 100,000 users take about the file's size plus the
 * snapshot itself.
 */
export class FileDirectorySource implements DirectorySource {
  readonly kind = 'file';

  constructor(private readonly path: string) {}

  async read(options: ReadOptions = {}): Promise<Snapshot> {
    const { signal } = options;
    signal?.throwIfAborted();
    const result = this.check(await this.load(signal));
    signal?.throwIfAborted();
    if (result.ok) return result.snapshot;
    throw new BridgeError(
      'source_invalid',
      `${this.label} gave an invalid snapshot: ${countProblems(result.total)}`,
      {
        problems: result.problems,
      },
    );
  }

  private get label(): string {
    return `The directory file ${this.path}`;
  }

  private async load(signal: AbortSignal | undefined): Promise<Buffer> {
    try {
      return await readFile(this.path, { signal });
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      throw new BridgeError(
        'source_unavailable',
        `Cannot read the directory file ${this.path}: ${reason(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  private check(bytes: Buffer): SnapshotCheck {
    try {
      // Not an object at the top: small or wrong, so parsed whole for the usual problem list.
      return readSnapshotBytes(bytes) ?? checkSnapshot(JSON.parse(bytes.toString('utf8')) as unknown);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError || error instanceof SyntaxError)) throw error;
      throw new BridgeError('source_invalid', `${this.label} is not JSON: ${error.message}`, {
        problems: [`snapshot: not JSON (${error.message})`],
      });
    }
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
