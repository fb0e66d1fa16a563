import { z } from 'zod';

/**
 * A file sent with a multipart run request, as `metadata.attachments` records it. The file is at
 * `$ARTIFACTS_DIR/<path>` (that is `$ATTACHMENTS_DIR/<name>`); `name` is the sanitized file name
 * Cairn chose, `original_name` what the client sent (cut, control characters removed).
 */
export const runAttachmentSchema = z.object({
  name: z.string().describe('The file’s name under $ATTACHMENTS_DIR'),
  original_name: z.string().describe('The name the client sent, cut to 255 characters, control characters removed'),
  path: z.string().describe('Relative to $ARTIFACTS_DIR: attachments/<name>'),
  size: z.number().int().nonnegative().describe('Bytes'),
  mime_type: z.string().describe('The content type the client declared'),
});
export type RunAttachment = z.infer<typeof runAttachmentSchema>;

/** The folder under `$ARTIFACTS_DIR` attachments are kept in (`$ATTACHMENTS_DIR`). */
export const ATTACHMENTS_FOLDER = 'attachments';
