import { z } from 'zod';
import { directorySourceKind } from '../../source-kind.js';
import { FileDirectorySource } from './file.source.js';

/** The `file` source: a JSON or NDJSON snapshot file, read afresh at each full sync (SPEC §5.4). */
export const fileSource = directorySourceKind({
  title: 'JSON or NDJSON snapshot file',
  settings: {
    key: 'file',
    shape: z.object({ path: z.string().default('') }),
    env: [
      { env: 'DIRECTORY_FILE', key: 'path', kind: 'string', expected: 'the path of a JSON snapshot file' },
    ],
    problems: (settings) => (settings.path === '' ? [{ key: 'path', message: 'required' }] : []),
  },
  build: (settings) => new FileDirectorySource(settings.path),
});
