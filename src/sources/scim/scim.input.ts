import type { Input } from '../../domain/input.js';
import { pushInput } from '../push-input.js';

/** The IdP's SCIM push (SPEC §5.1) as an input: owner `scim`, enabled by INBOUND_SCIM_TOKEN. */
export function scimInput(token: () => string): Input {
  return pushInput('scim', '/scim/v2', { value: token, setting: 'INBOUND_SCIM_TOKEN' });
}
