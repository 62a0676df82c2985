import type { z } from 'zod';
import { BridgeError } from '../domain/errors.js';

/** Parses query or body input of an admin route; invalid input is a 400 listing each problem. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`);
  throw new BridgeError('invalid_input', `The ${what} is invalid`, { problems });
}

/**
 * A request's JSON body where the body is optional: none at all reads as `{}`; anything sent —
 * `null` included — is what the route's schema judges.
 */
export function optionalBody(body: unknown): unknown {
  return body === undefined ? {} : body;
}
