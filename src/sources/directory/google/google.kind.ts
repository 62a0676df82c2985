import { BridgeError } from '../../../domain/errors.js';
import { directorySourceKind, type SourceContext } from '../../source-kind.js';
import { googleAccess, keyProblem, type GoogleAccess } from './google-api.js';
import { googleAuditDelta } from './google-audit.delta.js';
import { googleNeeds } from './google-items.js';
import { GoogleDirectorySource } from './google.source.js';
import { googleSettings, type GoogleSettings } from './google.settings.js';

/**
 * The `google` source: Google Workspace through the Admin SDK (SPEC §5.5) — a service account with
 * domain-wide delegation, read in full from the Directory API and for what changed from the
 * Reports API's audit logs (docs/google-workspace.md).
 */
export const googleSource = directorySourceKind({
  title: 'Google Workspace',
  settings: googleSettings,
  build: (settings, context) =>
    new GoogleDirectorySource(checkedAccess(settings, context), googleNeeds(context.policies, settings)),
  changes: (settings, context) =>
    googleAuditDelta(checkedAccess(settings, context), googleNeeds(context.policies, settings)),
});

/** The directory's access to Google; a key that is no service account key stops start-up. */
function checkedAccess(settings: GoogleSettings, context: SourceContext): GoogleAccess {
  const access = googleAccess(settings, context);
  const problem = keyProblem(access.key());
  if (problem !== undefined) {
    const line = `directory ${context.name} (google): the service account key ${problem}`;
    throw new BridgeError('invalid_input', `The Google service account key ${problem}`, {
      problems: [line],
    });
  }
  return access;
}
