/** Building blocks of the admin API's JSON Schemas (openapi.schemas.ts, openapi.sync-schemas.ts). */

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
