import { z } from 'zod';
import { JSON_SCHEMA_FORMS } from '../../src/config/json-schema-forms.js';

/** A JSON Schema (draft-07) as JSON. */
export type JsonSchema = Record<string, unknown>;

export const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The draft-07 keywords whose value is a schema, a list of schemas, or a map of them. */
const ONE = ['items', 'additionalItems', 'additionalProperties', 'propertyNames', 'contains', 'not'];
const LIST = ['allOf', 'anyOf', 'oneOf'];
const MAP = ['properties', 'patternProperties', 'definitions'];

/** Calls `visit` on a schema and every schema below it. */
export function eachSchema(node: unknown, visit: (schema: JsonSchema) => void): void {
  if (!isSchema(node)) return;
  visit(node);
  for (const key of ONE) eachSchema(node[key], visit);
  for (const key of LIST) if (Array.isArray(node[key])) for (const item of node[key]) eachSchema(item, visit);
  for (const key of MAP)
    if (isSchema(node[key])) for (const item of Object.values(node[key])) eachSchema(item, visit);
}

/** Puts the JSON Schema form of what a setting's code checks (config/json-schema-forms.ts) in its place. */
function withForms(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const form = JSON_SCHEMA_FORMS.get(ctx.zodSchema as z.ZodType);
  if (!form) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, structuredClone(form));
}

/**
 * A zod schema's input side (before defaults and transforms) in draft-07 JSON Schema, as Helm
 * checks values: `notes` gives descriptions and the ids of shapes defined once (`definitions`). No
 * `default` (values.yaml holds the defaults; Helm takes none from the schema), every object closed
 * to keys it does not name, as the bridge refuses unknown keys in its configuration file, and a
 * description first, where a reader of the file looks for it.
 */
export function toDraft7(schema: z.ZodType, notes: z.core.$ZodRegistry<JsonSchema>): JsonSchema {
  const { $schema: _schema, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    metadata: notes,
    override: withForms,
  }) as JsonSchema;
  eachSchema(json, (node) => {
    delete node.default;
    // Every key of a JSON object is a string: zod's record says so, JSON Schema need not.
    if (isSchema(node.propertyNames) && Object.keys(node.propertyNames).join() === 'type')
      if (node.propertyNames.type === 'string') delete node.propertyNames;
    if (node.type === 'object' && isSchema(node.properties) && node.additionalProperties === undefined)
      node.additionalProperties = false;
    if (typeof node.description === 'string') {
      const { description, ...rest } = node;
      for (const key of Object.keys(node)) delete node[key];
      Object.assign(node, { description, ...rest });
    }
  });
  return json;
}
