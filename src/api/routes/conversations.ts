import { requestUser } from '../callers/identity.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { newConversationId, newConversationRowId } from '../../shared/conversation-id.js';
import { CairnError } from '../../shared/errors.js';
import type { Conversation, MessageCursor } from '../../store/schemas/conversation.js';
import type { Store } from '../../store/store.js';
import {
  CONVERSATION_LIST_LIMIT,
  conversationErrorText,
  conversationIdParamsSchema,
  conversationListResponseSchema,
  conversationSuccessSchema,
  conversationViewSchema,
  createConversationBodySchema,
  createConversationResponseSchema,
  listConversationsQuerySchema,
  listMessagesQuerySchema,
  messageListResponseSchema,
  MESSAGES_DEFAULT_LIMIT,
  MESSAGES_MAX_LIMIT,
  renameConversationBodySchema,
} from '../../wire/conversations.js';
import { errorBodySchema } from '../../wire/error-body.js';

export interface ConversationRoutesOptions {
  store: Store;
  clock: () => number;
}

const TITLE_MAX = 255;
const tags = ['conversations'];
const refusals = { 400: errorBodySchema, 404: errorBodySchema };

async function requireConversation(store: Store, platformId: string): Promise<Conversation> {
  const conversation = await store.getConversation(platformId);
  if (!conversation) throw new CairnError('CONVERSATION_NOT_FOUND', conversationErrorText.notFound);
  return conversation;
}

/** `before` as the store's cursor: digits are a message id, anything else (validated) an ISO time. */
function cursorOf(before: string | undefined): MessageCursor | undefined {
  if (before === undefined) return undefined;
  return /^\d+$/.test(before) ? { beforeId: Number(before) } : { beforeTime: new Date(before).toISOString() };
}

/**
 * `/api/conversations`: chat threads and their messages. A message sent here is persisted with a
 * `chat_turn` job; the supervisor carries the turn out and answers on the conversation's stream.
 */
export const conversationRoutes: FastifyPluginAsyncZod<ConversationRoutesOptions> = async (app, { store, clock }) => {
  app.get(
    '/api/conversations',
    {
      schema: {
        tags,
        summary: `Conversations, newest activity first (at most ${CONVERSATION_LIST_LIMIT})`,
        description:
          'A bare array. Leaves out worker conversations (a run’s own) and soft-deleted ones unless ' +
          'include_deleted=true; a conversation just created, with no message yet, is listed.',
        querystring: listConversationsQuerySchema,
        response: { 200: conversationListResponseSchema, 400: errorBodySchema },
      },
    },
    async (req) =>
      store.listConversations({
        codebaseId: req.query.codebase_id ?? req.query.codebaseId,
        includeDeleted: req.query.include_deleted ?? false,
        limit: CONVERSATION_LIST_LIMIT,
      }),
  );

  app.post(
    '/api/conversations',
    {
      schema: {
        tags,
        summary: 'Create a conversation ({} is valid), optionally bound to a codebase and with a first message',
        body: createConversationBodySchema,
        response: { 200: createConversationResponseSchema, 400: errorBodySchema, 415: errorBodySchema },
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const userId = requestUser(req);
      const codebaseId = body.codebase_id ?? body.codebaseId ?? null;
      if (codebaseId !== null && !(await store.getCodebase(codebaseId))) {
        throw new CairnError('CONVERSATION_CODEBASE_UNKNOWN', conversationErrorText.codebaseNotFound, `No codebase with id "${codebaseId}"`);
      }
      const wanted = {
        id: newConversationRowId(),
        platform_type: 'web',
        platform_conversation_id: newConversationId(clock()),
        codebase_id: codebaseId,
        hidden: false,
        user_id: userId,
      };
      if (body.message === undefined) {
        const created = await store.createConversation(wanted);
        return { ...created, conversationId: created.platform_conversation_id };
      }
      const accepted = await store.acceptChatMessage({ conversation: wanted, message: { role: 'user', content: body.message, user_id: userId } });
      req.log.info({ conversationId: wanted.platform_conversation_id, status: accepted.status }, 'chat.message_accepted');
      return {
        ...accepted.conversation,
        conversationId: accepted.conversation.platform_conversation_id,
        dispatched: true as const,
        accepted: true as const,
        status: accepted.status,
      };
    },
  );

  app.get(
    '/api/conversations/:id',
    {
      schema: { tags, summary: 'One conversation, by platform id', params: conversationIdParamsSchema, response: { 200: conversationViewSchema, ...refusals } },
    },
    async (req) => requireConversation(store, req.params.id),
  );

  app.patch(
    '/api/conversations/:id',
    {
      schema: {
        tags,
        summary: `Rename a conversation (the title is cut to ${TITLE_MAX} characters)`,
        params: conversationIdParamsSchema,
        body: renameConversationBodySchema,
        response: { 200: conversationSuccessSchema, ...refusals, 415: errorBodySchema },
      },
    },
    async (req) => {
      await requireConversation(store, req.params.id);
      const conversation = await store.renameConversation(req.params.id, [...req.body.title].slice(0, TITLE_MAX).join(''));
      return { success: true as const, conversation: conversation! };
    },
  );

  app.delete(
    '/api/conversations/:id',
    {
      schema: {
        tags,
        summary: 'Soft-delete a conversation: hidden from the list, kept with its messages',
        params: conversationIdParamsSchema,
        response: { 200: conversationSuccessSchema, ...refusals },
      },
    },
    async (req) => {
      await requireConversation(store, req.params.id);
      await store.deleteConversation(req.params.id);
      return { success: true as const };
    },
  );

  app.get(
    '/api/conversations/:id/messages',
    {
      schema: {
        tags,
        summary: 'Messages, oldest first: the newest `limit` before the `before` cursor',
        description:
          `limit defaults to ${MESSAGES_DEFAULT_LIMIT}; more than ${MESSAGES_MAX_LIMIT} reads ${MESSAGES_MAX_LIMIT}. ` +
          'To page back through history, pass the id of the first message of each page as before: ' +
          'pages never overlap and never skip a message, even when messages share a timestamp.',
        params: conversationIdParamsSchema,
        querystring: listMessagesQuerySchema,
        response: { 200: messageListResponseSchema, ...refusals },
      },
    },
    async (req) => {
      const conversation = await requireConversation(store, req.params.id);
      const limit = Math.min(req.query.limit ?? MESSAGES_DEFAULT_LIMIT, MESSAGES_MAX_LIMIT);
      return store.listMessages(conversation.id, limit, cursorOf(req.query.before));
    },
  );
};
