import { z } from 'zod';

/** `GET /api/update-check`: upstream's shape, read by its web UI's banner. */
export const updateCheckResponseSchema = z.object({
  updateAvailable: z.boolean().describe('A newer version is published (always false for a source build)'),
  currentVersion: z.string().describe('The running version'),
  latestVersion: z.string().describe('The newest version known; the current one when none is newer or unknown'),
  releaseUrl: z.string().describe('Where the newer version is described; empty when there is none'),
});
export type UpdateCheckResponse = z.infer<typeof updateCheckResponseSchema>;
