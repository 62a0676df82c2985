import { z } from 'zod';
import { parseKey } from '../../domain/identity.js';
import { identityIdProblem } from '../../domain/platform-rules.js';
import { StoredError } from './identity.schema.js';
import { answer, count, identityKind, request, text, time } from './shapes.js';

/** GET /admin/failures and POST /admin/failures/retry: identities the platform refused for good. */

const kind = z.enum(['user', 'group'], { error: 'not user or group' });
const code = z.string().regex(/^[a-z][a-z_]{0,63}$/, 'not an error code');
/** The most keys one retry names. */
export const MAX_RETRY_KEYS = 10_000;

export const FailureListQuery = z.strictObject({
  kind: kind.optional(),
  code: code.optional().meta({ description: 'Error code' }),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.coerce.number().int().min(0).default(0).meta({ description: 'nextCursor of the previous page' }),
});

/** An identity key whose id the store could hold (checked before anything reads Redis). */
const identityKey = z
  .string()
  .refine((text) => {
    const key = parseKey(text);
    return key !== undefined && identityIdProblem(key.id) === undefined;
  }, 'not user:<id> or group:<id> (an id is non-empty, without control characters)')
  .meta({ description: 'user:<id> or group:<id>' });

export const FailureRetryBody = request(
  'FailureRetryBody',
  z.union([
    z.strictObject({ all: z.literal(true), kind: kind.optional(), code: code.optional() }),
    z.strictObject({ keys: z.array(identityKey).min(1).max(MAX_RETRY_KEYS) }),
  ]),
);

export const Failure = answer(
  'Failure',
  z.strictObject({
    key: text(),
    kind: identityKind(),
    id: text(),
    name: text().nullable(),
    failedAt: time().nullable(),
    error: StoredError.nullable(),
  }),
);
export type Failure = z.infer<typeof Failure>;

export const FailureList = answer(
  'FailureList',
  z.strictObject({ total: count(), items: z.array(Failure), nextCursor: text().nullable() }),
);
export type FailureList = z.infer<typeof FailureList>;

export const FailureRetry = answer('FailureRetry', z.strictObject({ retried: count() }));
export type FailureRetry = z.infer<typeof FailureRetry>;
