import type { Owner } from '../domain/desired-change.js';
import { BridgeError } from '../domain/errors.js';

/** The inputs a sync can read in full (their owners), and the configured directory's owner. */
export interface SyncInputs {
  readable: readonly string[];
  directory: Owner;
}

/**
 * The input a sync reads: the one named (400 unless it can be read in full, naming those that
 * can), else the directory when it can be read; none: the desired state is reconciled as it is.
 */
export function inputToRead(inputs: SyncInputs, input: string | undefined): string | undefined {
  const { readable, directory } = inputs;
  if (input === undefined) return readable.includes(directory) ? directory : undefined;
  if (readable.includes(input)) return input;
  const can = readable.length === 0 ? 'none is configured' : `those that can: ${readable.join(', ')}`;
  throw new BridgeError(
    'invalid_input',
    `The input ${JSON.stringify(input)} cannot be read in full (${can})`,
    {
      problems: [`input: not an input that can be read in full (${can})`],
    },
  );
}

/** A pushed snapshot replaces the directory's identities: another input named with it is refused. */
export function refuseOtherInput(input: string | undefined, directory: string): void {
  if (input === undefined || input === directory) return;
  throw new BridgeError('invalid_input', `A snapshot replaces the directory's identities (${directory})`, {
    problems: [`input: a snapshot is the directory's (${directory}); leave input out or name it`],
  });
}
