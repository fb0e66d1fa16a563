import { z } from 'zod';

/**
 * A conversation: a chat thread, optionally bound to a codebase. Two ids: `id` (hex, the row's
 * key, what messages point at) and `platform_conversation_id` (`web-<ms>-<6>`, the handle every
 * route, the SSE stream and a run's `conversation_id` use). `hidden` marks worker conversations
 * (a run's own thread), which no list shows.
 */
export const conversationSchema = z.object({
  id: z.string(),
  platform_type: z.string(),
  platform_conversation_id: z.string(),
  ai_assistant_type: z.string(),
  codebase_id: z.string().nullable(),
  cwd: z.string().nullable().describe('Working-directory override; null: the codebase’s checkout'),
  isolation_env_id: z.string().nullable(),
  title: z.string().nullable(),
  hidden: z.boolean(),
  deleted_at: z.string().nullable(),
  last_activity_at: z.string(),
  user_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Conversation = z.infer<typeof conversationSchema>;

export interface NewConversation {
  id: string;
  platform_type: string;
  platform_conversation_id: string;
  codebase_id: string | null;
  hidden: boolean;
  title?: string | null;
  user_id?: string | null;
}

/** What a chat turn or a command may change on a conversation; omitted keys stay as they are. */
export interface ConversationPatch {
  codebase_id?: string | null;
  cwd?: string | null;
  isolation_env_id?: string | null;
}

export const messageRoleSchema = z.enum(['user', 'assistant']);
export type MessageRole = z.infer<typeof messageRoleSchema>;

/** A message. `id` increases in insert order: the stable order and the paging cursor. */
export const messageSchema = z.object({
  id: z.number().int().positive(),
  conversation_id: z.string().describe('The conversation’s hex id'),
  role: messageRoleSchema,
  content: z.string(),
  metadata: z.string().describe('A JSON object, as text (e.g. {"category":"workflow_result"})'),
  user_id: z.string().nullable(),
  created_at: z.string(),
});
export type Message = z.infer<typeof messageSchema>;

export interface NewMessage {
  role: MessageRole;
  content: string;
  metadata?: Record<string, unknown>;
  user_id?: string | null;
}

/** Where a page of history ends: before a message id, or before a time. */
export type MessageCursor = { beforeId: number } | { beforeTime: string };

export interface ConversationListQuery {
  codebaseId?: string | undefined;
  includeDeleted: boolean;
  limit: number;
}

/** How a message sent to a conversation was taken: its turn starts now, or waits. */
export const dispatchStatusSchema = z.enum(['started', 'queued-conversation', 'queued-capacity']);
export type DispatchStatus = z.infer<typeof dispatchStatusSchema>;

/** The chat turns open right now, from the job queue. */
export interface ChatTurnQueue {
  /** Conversations (platform ids) with a turn being carried out. */
  activeConversationIds: string[];
  /** Turns waiting, by conversation (platform id). */
  queuedByConversation: Record<string, number>;
}

/** At most this many chat turns are carried out at once, across conversations. */
export const MAX_CONCURRENT_CHAT_TURNS = 10;
