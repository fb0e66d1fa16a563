import { z } from 'zod';

/**
 * Every error response: `{ error, code }`, with `detail` when there is more to say. The API's
 * error handler (`api/errors.ts`) writes it for every refusal, the router's and Node's HTTP
 * parser's included; clients (the CLI) read `error` and `detail` to show the refusal as the
 * server worded it. `code` stays a string here, so a client keeps reading the bodies of a newer
 * server that has added codes.
 */
export const errorBodySchema = z
  .object({
    error: z.string().describe('What went wrong, naming the field or the thing'),
    code: z.string().describe('Stable machine-readable code of Cairn’s own, e.g. RUN_NOT_FOUND or URL_TOO_LONG'),
    detail: z.string().optional().describe('More about the error, when there is more to say'),
    errors: z
      .array(z.string())
      .optional()
      .describe('Every problem found, one per entry, when the error stands for several (an invalid workflow definition)'),
  })
  .loose()
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBodySchema>;
