import type { Input } from '../domain/input.js';

/**
 * An input that takes pushes at a path of the bridge (SPEC §5.1–5.3), enabled while its secret is
 * set. `kind` is also its owner name: one SCIM server, one events endpoint, one Okta org.
 */
export function pushInput(
  kind: 'scim' | 'events' | 'okta',
  path: string,
  secret: { value: () => string; setting: string },
): Input {
  const enabled = () => secret.value() !== '';
  return {
    owner: kind,
    kind,
    push: { path, enabled },
    health: () => (enabled() ? { state: 'ok' } : { state: 'disabled', detail: `${secret.setting} is unset` }),
  };
}
