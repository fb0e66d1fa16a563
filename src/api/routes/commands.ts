import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { workflowSourceSchema } from '../../shared/workflow-source.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { resolveRunCwd } from '../run-target/run-cwd.js';
import { workflowCwdQuerySchema } from '../../wire/workflows.js';

export interface CommandRoutesOptions {
  catalog: WorkflowCatalog;
}

const commandListResponseSchema = z.object({
  commands: z
    .array(
      z.object({
        name: z.string().describe('What a command: node names; the file is <name>.md'),
        source: workflowSourceSchema.describe('project, global (home-scoped) or bundled; the highest scope wins a name'),
      }),
    )
    .describe('One entry per name, sorted by name'),
});

/** `GET /api/commands`: the command files a `command:` node can name. */
export const commandRoutes: FastifyPluginAsyncZod<CommandRoutesOptions> = async (app, opts) => {
  app.get(
    '/api/commands',
    {
      schema: {
        tags: ['workflows'],
        summary: 'List the commands visible from a project',
        description:
          'Commands are <name>.md files in <cwd>/.cairn/commands, <cwd>/.archon/commands, ' +
          '$CAIRN_HOME/commands and the bundled set, in that order of precedence.',
        querystring: workflowCwdQuerySchema,
        response: { 200: commandListResponseSchema, 400: errorBodySchema },
      },
    },
    async (req) => {
      const cwd = await resolveRunCwd(req.query.cwd);
      return { commands: opts.catalog.commands({ cwd }).map(({ name, source }) => ({ name, source })) };
    },
  );
};
