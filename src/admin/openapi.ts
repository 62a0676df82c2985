import { Router } from 'express';
import { z } from 'zod';
import { ADMIN_OPERATIONS } from './openapi-paths.js';
import type { AdminOperation, Answer } from './openapi-operation.js';
import { answerShapes, requestShapes } from './schemas/shapes.js';

/**
 * The OpenAPI 3.1 document of the admin API, served at GET /admin/openapi.json, generated from the
 * zod schemas the routes parse their input with and the views are typed from (schemas/), through
 * zod's own JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses). Every named shape is a
 * component; openapi-paths.ts says which operation reads and answers which.
 */

type JsonSchema = Record<string, unknown>;

const REF = '#/components/schemas/';

/**
 * zod's output, trimmed for the document: no ±2^53 bounds zod adds to every integer, no regular
 * expression beside a date-time format that already says it.
 */
const trim = (ctx: { jsonSchema: JsonSchema }) => {
  const schema = ctx.jsonSchema;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.format === 'date-time') delete schema.pattern;
};

/** A schema written in place (a parameter, a plain string): without `$schema`, as the document's part. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _schema, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    override: trim,
  });
  return json;
}

/** Every named shape; without `$schema` and `$id`: the document is their resource. */
function components(): Record<string, JsonSchema> {
  const options = (io: 'input' | 'output') =>
    ({ target: 'draft-2020-12', io, uri: (id: string) => REF + id, override: trim }) as const;
  const all = {
    ...z.toJSONSchema(answerShapes, options('output')).schemas,
    ...z.toJSONSchema(requestShapes, options('input')).schemas,
  };
  return Object.fromEntries(
    Object.entries(all).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema]),
  );
}

/** A named shape is referred to; a plain string (NDJSON, an event stream) is written in place. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = (io === 'output' ? answerShapes : requestShapes).get(schema)?.id;
  if (id) return { $ref: REF + id };
  if (schema instanceof z.ZodString) return jsonSchema(schema, io);
  throw new Error(
    `A body of the admin API has no name in schemas/ (${io}): register it with answer() or request()`,
  );
}

/** Path or query parameters from an object schema: one per key, its description beside it. */
function parameters(where: 'path' | 'query', schema: z.ZodObject | undefined) {
  if (!schema) return [];
  const json = jsonSchema(schema, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    ...(typeof description === 'string' ? { description } : {}),
    schema: property,
  }));
}

function response(answer: Answer) {
  if (!answer.body) return { description: answer.description };
  const type = answer.type ?? 'application/json';
  return {
    description: answer.description,
    content: { [type]: { schema: schemaOf(answer.body, 'output') } },
  };
}

function operation(op: AdminOperation) {
  const params = [...parameters('path', op.params), ...parameters('query', op.query)];
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            content: Object.fromEntries(
              Object.entries(op.body.content).map(([type, schema]) => [
                type,
                { schema: schemaOf(schema, 'input') },
              ]),
            ),
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(op.answers).map(([status, a]) => [status, response(a)])),
  };
}

export function buildAdminOpenApi() {
  const paths: Record<string, Record<string, ReturnType<typeof operation>>> = {};
  for (const op of ADMIN_OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'scim-bridge admin API',
      version: '1',
      description:
        'Operating the bridge: status, full reconciliations, identity traces, failures and conflicts between inputs. Every route needs `Authorization: Bearer ADMIN_TOKEN`. Errors are `{"error": {"code", "message", "problems"?}}`.',
    },
    servers: [{ url: '/' }],
    security: [{ adminToken: [] }],
    paths,
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } },
      schemas: components(),
    },
  };
}

/** Generated once, when the module loads: the schemas do not change while the process runs. */
export const ADMIN_OPENAPI = buildAdminOpenApi();

export function adminOpenApiRouter(): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(ADMIN_OPENAPI);
  });
  return router;
}
