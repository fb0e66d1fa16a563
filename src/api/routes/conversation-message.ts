import { requestUser } from '../callers/identity.js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { newConversationRowId } from '../../shared/conversation-id.js';
import { CairnError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Store } from '../../store/store.js';
import { conversationIdParamsSchema, sendMessageBodySchema, sendMessageResponseSchema } from '../../wire/conversations.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { formatValidationIssues } from '../errors.js';
import { moveUpload } from '../run-files/run-attachments.js';
import { discardUpload, receiveUpload, uploadLimits } from '../run-files/run-upload.js';

export interface ConversationMessageRoutesOptions {
  store: Store;
  paths: HomePaths;
  /** The largest JSON body, and so the largest text field of a multipart request. */
  bodyLimit: number;
}

/** The message of a multipart request's fields (or of a JSON body), checked with the one schema. */
function messageOf(fields: unknown): string {
  const parsed = sendMessageBodySchema.safeParse(fields);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ instancePath: `/${issue.path.join('/')}`, message: issue.message }));
    throw new CairnError('VALIDATION_FAILED', formatValidationIssues(issues, 'body'));
  }
  return parsed.data.message;
}

/**
 * `POST /api/conversations/{id}/message`, as JSON or multipart. A multipart message carries
 * `message` and up to 5 files of at most 10 MB each: they are streamed to a temporary folder,
 * then moved under `$CAIRN_HOME/conversations/<id>/files/<upload id>/` before the message is
 * stored (with `metadata.files: [{ name, mimeType, size }]`); a refusal keeps nothing.
 */
export const conversationMessageRoutes: FastifyPluginAsyncZod<ConversationMessageRoutesOptions> = async (app, opts) => {
  // Scoped to this plugin: the other conversation routes still answer a multipart body with 415.
  await app.register(fastifyMultipart, { limits: uploadLimits(opts.bodyLimit), throwFileSizeLimit: true });

  app.post(
    '/api/conversations/:id/message',
    {
      schema: {
        tags: ['conversations'],
        summary: 'Send a message (JSON, or multipart with files); answers at once, the reply arrives on the stream and in the messages',
        description:
          'Persists the message and queues its chat turn for the supervisor. One turn per conversation ' +
          'at a time, later ones in order. An unknown id is created as a web conversation. Replies are ' +
          'streamed on /api/stream/{id} (conversation_lock, text) and stored as assistant messages. The ' +
          'body may instead be multipart/form-data: a message field and up to 5 file parts of at most ' +
          '10 MB each, listed in the stored message’s metadata.files.',
        params: conversationIdParamsSchema,
        // Optional here: a multipart body is read by the handler, and checked there with the same schema.
        body: sendMessageBodySchema.nullish(),
        response: { 200: sendMessageResponseSchema, 400: errorBodySchema, 413: errorBodySchema, 415: errorBodySchema },
      },
    },
    async (req) => {
      const upload = req.isMultipart() ? await receiveUpload(req, opts.paths.uploads, opts.bodyLimit, 'message') : undefined;
      let placed: string | undefined;
      try {
        const content = messageOf(upload ? upload.body : req.body);
        const userId = requestUser(req);
        const metadata: Record<string, unknown> = {};
        if (upload && upload.files.length > 0) {
          placed = join(opts.paths.conversationFiles(req.params.id), randomUUID());
          await moveUpload(upload, placed);
          metadata.files = upload.files.map((file) => ({ name: file.name, mimeType: file.mimeType, size: file.size }));
        }
        const accepted = await opts.store.acceptChatMessage({
          conversation: {
            id: newConversationRowId(),
            platform_type: 'web',
            platform_conversation_id: req.params.id,
            codebase_id: null,
            hidden: false,
            user_id: userId,
          },
          message: { role: 'user', content, metadata, user_id: userId },
        });
        req.log.info(
          { conversationId: req.params.id, status: accepted.status, jobId: accepted.job.id, files: upload?.files.length ?? 0 },
          'chat.message_accepted',
        );
        return { accepted: true as const, status: accepted.status };
      } catch (err) {
        if (placed) await discardUpload({ dir: placed });
        throw err;
      } finally {
        await discardUpload(upload);
      }
    },
  );
};
