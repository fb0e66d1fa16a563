import { z } from 'zod';
import { conversationIdPattern, isReservedConversationId, reservedConversationIdText } from '../shared/conversation-id.js';
import { conversationSchema, dispatchStatusSchema, messageSchema } from '../store/schemas/conversation.js';
import { isIsoDateText } from './iso-date.js';
import { withoutNul } from '../shared/without-nul.js';

/** Schemas of `/api/conversations…`, for validation, serialization and OpenAPI. Texts are upstream's. */

export const conversationErrorText = {
  notFound: 'Conversation not found',
  invalidId: 'Invalid conversation ID',
  codebaseNotFound: 'Codebase not found',
  emptyMessage: 'message must be a non-empty string',
} as const;

export const CONVERSATION_LIST_LIMIT = 50;
export const MESSAGES_DEFAULT_LIMIT = 200;
export const MESSAGES_MAX_LIMIT = 500;

export const conversationIdParamsSchema = z.object({
  id: z
    .string()
    .max(200, { error: `${conversationErrorText.invalidId}: at most 200 characters` })
    .regex(conversationIdPattern, { error: conversationErrorText.invalidId })
    .refine((id) => !isReservedConversationId(id), { error: `${conversationErrorText.invalidId}: ${reservedConversationIdText}` })
    .describe('The platform_conversation_id (e.g. web-1767225600000-ab12cd), not the hex id'),
});

const codebaseIdText = z
  .string({ error: 'codebase_id must be a string' })
  .min(1, { error: 'codebase_id must be a non-empty string' })
  .max(400, { error: 'codebase_id must be at most 400 characters' });

const chatMessageText = z
  .string({ error: conversationErrorText.emptyMessage })
  .refine((text) => text.trim().length > 0, { error: conversationErrorText.emptyMessage });

export const createConversationBodySchema = z
  .object(
    {
      codebase_id: codebaseIdText.optional().describe('Bind the conversation to this registered codebase'),
      codebaseId: codebaseIdText.optional().describe('Same as codebase_id (the upstream web client’s spelling)'),
      message: chatMessageText.optional().describe('A first message, sent at once (as POST …/message would)'),
    },
    { error: 'The body must be a JSON object, e.g. {} or { "codebase_id": "owner/repo" }' },
  )
  .nullish();

/**
 * The created conversation (the contract: "created conversation including
 * `platform_conversation_id`"), plus the upstream client's spellings: `conversationId` (the
 * platform id) and, with a first message, `dispatched`/`accepted`/`status`.
 */
export const createConversationResponseSchema = conversationSchema.extend({
  conversationId: z.string().describe('The platform id again (the upstream client reads this name): the {id} of every other route and the stream key'),
  dispatched: z.literal(true).optional(),
  accepted: z.literal(true).optional(),
  status: dispatchStatusSchema.optional(),
});

const booleanText = z
  .enum(['true', 'false', '1', '0'], { error: 'include_deleted must be true or false' })
  .transform((text) => text === 'true' || text === '1');

export const listConversationsQuerySchema = z.object({
  codebase_id: codebaseIdText.optional().describe('Only conversations bound to this codebase'),
  codebaseId: codebaseIdText.optional().describe('Same as codebase_id'),
  include_deleted: booleanText.optional().describe('true: soft-deleted conversations too'),
});

export const conversationViewSchema = conversationSchema.describe('A conversation').meta({ id: 'Conversation' });
export const conversationListResponseSchema = z.array(conversationViewSchema);

export const renameConversationBodySchema = z.object(
  {
    title: withoutNul(z.string({ error: 'title must be a string' }), () => 'title')
      .refine((text) => text.trim().length > 0, { error: 'title must be a non-empty string' })
      .describe('Cut to 255 characters; no NUL byte'),
  },
  { error: 'The body must be a JSON object: { "title": "..." }' },
);

export const conversationSuccessSchema = z.object({
  success: z.literal(true),
  conversation: conversationViewSchema.optional().describe('The updated conversation (PATCH)'),
});

const positiveIntText = (field: string) =>
  z.string().regex(/^\d{1,9}$/, { error: `${field} must be a positive integer` }).transform(Number)
    .refine((n) => n > 0, { error: `${field} must be a positive integer` });

/** A message id as `before` takes it: a positive integer (ids start at 1), so never 0. */
function isMessageIdText(text: string): boolean {
  return /^\d{1,15}$/.test(text) && Number(text) > 0;
}

export const listMessagesQuerySchema = z.object({
  limit: positiveIntText('limit')
    .optional()
    .describe(`How many messages (default ${MESSAGES_DEFAULT_LIMIT}; more than ${MESSAGES_MAX_LIMIT} reads ${MESSAGES_MAX_LIMIT})`),
  before: z
    .string()
    .refine((text) => isMessageIdText(text) || isIsoDateText(text), {
      error: 'before must be a message id (a positive integer) or an ISO 8601 time',
    })
    .optional()
    .describe('Only messages older than this: a message id (the first id of the page you have) or an ISO time'),
});

export const messageViewSchema = messageSchema.describe('A message; metadata is a JSON object as text').meta({ id: 'Message' });
export const messageListResponseSchema = z.array(messageViewSchema);

export const sendMessageBodySchema = z.object({ message: chatMessageText }, { error: conversationErrorText.emptyMessage });

export const sendMessageResponseSchema = z.object({
  accepted: z.literal(true),
  status: dispatchStatusSchema.describe(
    'started: the turn begins now; queued-conversation: after the turns of this conversation before it; ' +
      'queued-capacity: when one of the turns carried out now ends',
  ),
});
