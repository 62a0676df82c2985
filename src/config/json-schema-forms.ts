import { z } from 'zod';

/** A JSON Schema (draft-07) fragment. */
export type JsonSchemaForm = Record<string, unknown>;

/**
 * What JSON Schema can check of a setting zod checks in code — a refinement or a transform, which
 * zod's JSON Schema output leaves out (a URL's protocol, `500,20%`): the form its value must have,
 * weaker than the rule itself. Helm's values.schema.json (tools/generate-helm-schema.ts) puts it in
 * the setting's place, so that `helm install` refuses what the bridge would refuse at start-up.
 */
export const JSON_SCHEMA_FORMS = z.registry<JsonSchemaForm>();

/** The schema, with the JSON Schema form of what its code checks recorded. */
export function withJsonSchemaForm<T extends z.ZodType>(schema: T, form: JsonSchemaForm): T {
  JSON_SCHEMA_FORMS.add(schema, form);
  return schema;
}
