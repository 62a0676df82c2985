import { BridgeError } from '../../domain/errors.js';
import type { Owner } from '../../domain/desired-change.js';
import type { FullRead, Inputs } from '../../domain/input.js';
import type { ReadOne } from '../../domain/source-identity.js';

export interface ProvisionInput {
  owner: Owner;
  read: FullRead;
  readOne: ReadOne;
}

const CONFIGURE =
  "configure a directory source (DIRECTORY_SOURCE) or Okta's API (OKTA_ORG_URL, OKTA_API_TOKEN)";

/**
 * The input to read the identity from: the one named, else the only one that can read one identity
 * at a time. Anything else is a 400 naming those that can.
 */
export function inputToProvision(inputs: Inputs, name: string | undefined): ProvisionInput {
  const readable = inputs
    .all()
    .flatMap(({ owner, full }) => (full?.readOne ? [{ owner, read: full, readOne: full.readOne }] : []));
  const found = readable.find((input) => input.owner === name);
  if (found) return found;
  const [only] = readable;
  if (name === undefined && only && readable.length === 1) return only;
  if (readable.length === 0) {
    throw new BridgeError('invalid_input', `No input can be read one identity at a time: ${CONFIGURE}`, {
      problems: [`input: none can be read one identity at a time (${CONFIGURE})`],
    });
  }
  const can = `those that can: ${readable.map((input) => input.owner).join(', ')}`;
  if (name === undefined) {
    throw new BridgeError('invalid_input', `Name the input to read the identity from (${can})`, {
      problems: [`input: required when more than one input can be read (${can})`],
    });
  }
  throw new BridgeError(
    'invalid_input',
    `The input ${JSON.stringify(name)} cannot be read one identity at a time (${can})`,
    { problems: [`input: not an input that can be read one identity at a time (${can})`] },
  );
}
