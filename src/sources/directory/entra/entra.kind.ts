import { directorySourceKind } from '../../source-kind.js';
import { entraDelta } from './entra-delta.js';
import { deltaPlanOf, EntraDirectorySource, graphOpener } from './entra.source.js';
import { entraSettings } from './entra.settings.js';

/**
 * The `entra` source: a Microsoft Entra ID tenant through Microsoft Graph (SPEC §5.5) — read in
 * full with nested groups flattened, read for its changes through Graph's delta query, one user or
 * group at a time for provision on demand, and checked for check-config. docs/entra-id.md says how
 * to register the app and when to use it beside Entra's own provisioning.
 */
export const entraSource = directorySourceKind({
  title: 'Microsoft Entra ID (Microsoft Graph)',
  settings: entraSettings,
  build: (settings, context) => new EntraDirectorySource(settings, context, graphOpener(settings, context)),
  changes: (settings, context) => entraDelta(graphOpener(settings, context), deltaPlanOf(settings)),
});
