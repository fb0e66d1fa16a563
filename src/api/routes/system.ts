import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { updateCheckResponseSchema } from '../../wire/update-check.js';
import type { UpdateChecker } from '../update-check.js';

export interface SystemRoutesOptions {
  updates: UpdateChecker;
}

/** `GET /api/update-check`. */
export const systemRoutes: FastifyPluginAsyncZod<SystemRoutesOptions> = async (app, { updates }) => {
  app.get(
    '/api/update-check',
    {
      schema: {
        tags: ['system'],
        summary: 'Whether a newer version of Cairn is published',
        description:
          'A source build answers updateAvailable false (latestVersion = currentVersion, releaseUrl "") and makes ' +
          'no request. A packaged build asks the npm registry at most once a day (2 s timeout) and answers from ' +
          'its cache otherwise; a failed check answers as if no update were available.',
        response: { 200: updateCheckResponseSchema },
      },
    },
    async () => updates.check(),
  );
};
