import { z } from 'zod';

/**
 * The admin API's shapes are written once, here in schemas/: zod checks the requests with them, the
 * views that build the answers are typed from them (z.infer), the OpenAPI document is generated
 * from them (openapi.ts), and the dashboard's JSDoc types import them (ui/api-types.ts). Nothing
 * here imports anything but zod, so the dashboard's type check can read these files too.
 *
 * A shape registered in one of the two registries below is a named schema of the document
 * (components.schemas.<id>): answers as the bridge sends them, requests as a client sends them.
 */
export const answerShapes = z.registry<{ id: string }>();
export const requestShapes = z.registry<{ id: string }>();

/** Registers an answer's shape under its name in the OpenAPI document. */
export function answer<S extends z.ZodType>(id: string, schema: S): S {
  answerShapes.add(schema as z.ZodType, { id });
  return schema;
}

/** Registers a request body's shape under its name in the OpenAPI document. */
export function request<S extends z.ZodType>(id: string, schema: S): S {
  requestShapes.add(schema as z.ZodType, { id });
  return schema;
}

/** A count: a whole number, 0 or more. */
export const count = () => z.number().int().min(0);
/** A time as the admin API writes it: ISO 8601 in UTC (`Date.prototype.toISOString`). */
export const time = () => z.iso.datetime();
export const text = () => z.string();
export const identityKind = () => z.enum(['user', 'group']);

/** An object of counts, every one present. */
export function counts<const K extends string>(names: readonly K[]) {
  return z.strictObject(Object.fromEntries(names.map((name) => [name, count()])) as Record<K, z.ZodNumber>);
}

/** The JSON error body of every admin route (SPEC §4). */
export const ErrorBody = answer(
  'Error',
  z.strictObject({
    error: z.strictObject({
      code: text().meta({ description: 'Stable error code, e.g. unauthorized, not_found, invalid_input.' }),
      message: text(),
      problems: z
        .array(text())
        .optional()
        .meta({ description: 'Each problem of an invalid input, as `path: reason`.' }),
    }),
  }),
);
export type ErrorBody = z.infer<typeof ErrorBody>;

/** GET /admin/openapi.json: the OpenAPI 3.1 document of this API. */
export const OpenApiDocument = answer(
  'OpenApiDocument',
  z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: text(), version: text() }),
    paths: z.record(text(), z.record(text(), z.unknown())),
  }),
);
