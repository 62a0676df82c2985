import type { Input } from '../../domain/input.js';

/** The IdP's SCIM push (SPEC §5.1) as an input: owner `scim`, enabled by INBOUND_SCIM_TOKEN. */
export function scimInput(token: () => string): Input {
  const enabled = () => token() !== '';
  return {
    owner: 'scim',
    kind: 'scim',
    push: { path: '/scim/v2', enabled },
    health: () =>
      enabled() ? { state: 'ok' } : { state: 'disabled', detail: 'INBOUND_SCIM_TOKEN is unset' },
  };
}
