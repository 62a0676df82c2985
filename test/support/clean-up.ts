/**
 * Runs every clean-up step even when one fails — a Redis topology left running would outlive the
 * test run — then rethrows the first failure.
 */
export async function cleanUp(...steps: (() => Promise<unknown> | unknown)[]): Promise<void> {
  let first: unknown;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}
