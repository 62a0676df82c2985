/** Building blocks of the admin API's JSON Schemas and paths (openapi*.ts). */

export const int = { type: 'integer', minimum: 0 } as const;
export const str = { type: 'string' } as const;
export const time = { type: 'string', format: 'date-time' } as const;
export const nullable = <T extends object>(schema: T) => ({ oneOf: [schema, { type: 'null' }] });
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const counts = (names: readonly string[]) => ({
  type: 'object',
  required: [...names],
  properties: Object.fromEntries(names.map((n) => [n, int])),
  additionalProperties: false,
});

/** A JSON response of the given schema. */
export const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** An error response (the Error schema). */
export const error = (description: string) => json(ref('Error'), description);
/** The answers every admin route may give before its own: no token, no Redis. */
export const guarded = {
  '401': error('Missing or wrong admin token'),
  '503': error('Redis is unavailable'),
};
