import { z } from 'zod';
import { workflowSourceSchema } from '../shared/workflow-source.js';
import { writableSourceSchema } from '../workflow/catalog/workflow-files.js';
import { inputTypes } from '../workflow/schema/input-types.js';
import { inputValueSchema } from '../shared/input-value.js';

/**
 * Schemas of the workflow-definition routes (`/api/workflows`, `/api/workflows/{name}`,
 * `/api/workflows/validate`), shared by validation, response serialization and
 * `/api/openapi.json`. The definition routes reuse `workflowNameParamsSchema` from
 * `run-request.ts`, so a name is refused with `Invalid workflow name` the same way everywhere.
 * (`writableSourceSchema` still comes from `workflow/catalog/workflow-files.ts`, which reads files: a
 * browser client will want it moved beside `workflowSourceSchema` in `shared/workflow-source.ts`.)
 */

export const workflowCwdQuerySchema = z.object({
  cwd: z
    .string({ error: 'cwd must be a string' })
    .min(1, { error: 'cwd must be a non-empty path' })
    .optional()
    .describe(
      'Absolute path of an existing project directory: its .cairn/workflows and .archon/workflows ' +
        'are searched first, and its .cairn/config.yaml gives the recommended list. Omitted: only ' +
        'home-scoped and bundled workflows.',
    ),
});

export const workflowSaveQuerySchema = workflowCwdQuerySchema.extend({
  source: writableSourceSchema
    .optional()
    .describe(
      'Where to save or delete: project (default; <cwd>/.cairn/workflows, cwd required) or global ' +
        '($CAIRN_HOME/workflows). Any other value: 400 Invalid workflow source.',
    ),
});

const workflowInputViewSchema = z.looseObject({
  required: z.boolean().optional(),
  default: inputValueSchema.optional().describe('Text for an input without a type; a value of its type for a typed one'),
  description: z.string().optional(),
  type: z.enum(inputTypes).optional().describe('The type of the input’s values (omitted: string)'),
  enum: z.array(z.string()).optional().describe('The strings a string input may hold'),
  items: z.object({ type: z.enum(inputTypes) }).optional().describe('The type of an array input’s items'),
});

/**
 * A loaded workflow as the API shows it. Only the fields clients read are spelled out; the
 * rest of the definition (node options, retry, when, ...) passes through unchanged.
 */
export const workflowViewSchema = z
  .looseObject({
    name: z.string(),
    description: z.string(),
    nodes: z
      .array(z.looseObject({ id: z.string() }))
      .describe('Nodes, each with an id and exactly one mode key (prompt, command, bash, script, loop, approval, ...)'),
    provider: z.string().optional().describe('Default provider declared by the author'),
    model: z.string().optional().describe('Default model, tier or @alias declared by the author'),
    interactive: z
      .boolean()
      .optional()
      .describe('True when a person drives the workflow: no schedule and no other workflow (workflow: node, fan_out) starts it'),
    tags: z.array(z.string()).optional().describe('The author’s tags; the dashboard’s Workflows page shows them and filters by one'),
    inputs: z.record(z.string(), workflowInputViewSchema).optional().describe('Declared run inputs'),
  })
  .describe('A workflow definition as loaded: validated, with include: expanded')
  .meta({ id: 'Workflow' });

const parseWarningsSchema = z
  .array(z.string())
  .optional()
  .describe("Keys of the file the engine ignores, e.g. \"Node 'a': unknown key 'foo' will be ignored.\"; omitted when clean");

export const workflowListEntrySchema = z.object({
  workflow: workflowViewSchema,
  source: workflowSourceSchema,
  filename: z.string().describe('Path of the file inside its scope folder, e.g. review.yaml or team/review.yaml'),
  parseWarnings: parseWarningsSchema,
});

export const discoveryErrorSchema = z.object({
  filename: z.string().describe('Path of the file inside its scope folder (or .cairn/config.yaml)'),
  source: workflowSourceSchema,
  error: z.string(),
  errorType: z.enum(['read_error', 'parse_error', 'validation_error']),
});

export const workflowListResponseSchema = z.object({
  workflows: z.array(workflowListEntrySchema).describe('Every workflow that loaded, sorted by name'),
  recommended: z
    .array(z.string())
    .describe('The project config’s recommended names that were discovered, in declared order; [] without cwd'),
  errors: z
    .array(discoveryErrorSchema)
    .optional()
    .describe('Files that did not load (YAML or validation errors); omitted when there are none'),
  configWarnings: z
    .array(z.string())
    .optional()
    .describe(
      'Cairn extension. Keys of the project’s .cairn/config.yaml (or .archon/config.yaml) that Cairn does not read, ' +
        'and values it cannot use, one message each naming the file and the key; omitted when there are none',
    ),
});
export type WorkflowListResponse = z.infer<typeof workflowListResponseSchema>;

export const workflowResponseSchema = z.object({
  workflow: workflowViewSchema,
  filename: z.string(),
  source: workflowSourceSchema,
  parseWarnings: parseWarningsSchema,
});

export const savedWorkflowResponseSchema = workflowResponseSchema.extend({ source: writableSourceSchema });

export const workflowDeleteResponseSchema = z.object({
  deleted: z.literal(true),
  name: z.string(),
  filename: z.string().describe('The file removed, inside its scope folder'),
  source: writableSourceSchema,
});

/** `{ definition }`: the messages name what is missing, because a 400 is all the client gets. */
export const definitionBodySchema = z
  .strictObject(
    {
      definition: z
        .record(z.string(), z.unknown(), {
          error: (iss) =>
            iss.input === undefined
              ? 'definition is required: send the workflow as an object { name, description, nodes }'
              : 'definition must be an object { name, description, nodes }, not ' +
                (Array.isArray(iss.input) ? 'an array' : iss.input === null ? 'null' : `a ${typeof iss.input}`),
        })
        .describe('The workflow, as its YAML file would hold it, in JSON'),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `Unknown field ${iss.keys.map((k) => `'${String(k)}'`).join(', ')}; the body has one field, definition`
          : iss.input === null || iss.input === undefined
            ? 'Request body is empty; send JSON { "definition": { name, description, nodes } }'
            : 'Request body must be a JSON object { "definition": { ... } }',
    },
  );
export type DefinitionBody = z.infer<typeof definitionBodySchema>;

export const validateResponseSchema = z.union([
  z.object({ valid: z.literal(true) }),
  z.object({
    valid: z.literal(false),
    errors: z.array(z.string()).describe('Every problem found, not only the first'),
  }),
]);

/** The most a workflow file's text may hold when sent to `PUT /api/workflows/{name}/file`. */
export const WORKFLOW_TEXT_MAX_CHARS = 2_000_000;

/** `GET /api/workflows/{name}/file`: the file that declares the workflow, as its text. */
export const workflowFileResponseSchema = z.object({
  name: z.string().describe('The workflow’s name'),
  source: workflowSourceSchema.describe('The scope the file is in'),
  filename: z.string().describe('The file’s path inside its scope folder'),
  text: z.string().describe('The file as it is on disk: comments, layout and include: as written'),
});

/** `PUT /api/workflows/{name}/file`: `{ text }`, the whole YAML file. */
export const workflowFileBodySchema = z.strictObject(
  {
    text: z
      .string({ error: 'text is required: send the workflow file’s YAML as a string' })
      .min(1, { error: 'text is empty: send the workflow file’s YAML' })
      .max(WORKFLOW_TEXT_MAX_CHARS, { error: `text must be at most ${WORKFLOW_TEXT_MAX_CHARS} characters` })
      .describe('The workflow file’s YAML, written as it is'),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Unknown field ${iss.keys.map((k) => `'${String(k)}'`).join(', ')}; the body has one field, text`
        : 'Request body must be a JSON object { "text": "<the YAML file>" }',
  },
);
