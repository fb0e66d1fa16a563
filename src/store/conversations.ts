import type {
  ChatTurnQueue,
  Conversation,
  ConversationListQuery,
  ConversationPatch,
  DispatchStatus,
  Message,
  MessageCursor,
  NewConversation,
  NewMessage,
} from './schemas/conversation.js';
import type { IsolationEnvironment } from './schemas/codebase.js';
import type { Job } from './schemas/job.js';
import type { NewConversationEvent } from './schemas/event.js';

export type {
  ChatTurnQueue,
  Conversation,
  ConversationListQuery,
  ConversationPatch,
  DispatchStatus,
  Message,
  MessageCursor,
  NewConversation,
  NewMessage,
} from './schemas/conversation.js';

export interface AcceptChatMessage {
  /** Created when no conversation has its platform id (unknown ids are created on the fly). */
  conversation: NewConversation;
  message: NewMessage;
}

export interface AcceptedChatMessage {
  conversation: Conversation;
  message: Message;
  job: Job;
  status: DispatchStatus;
}

export interface PostChatReply {
  /** The conversation's hex id. */
  conversationId: string;
  content: string;
  metadata?: Record<string, unknown>;
  /** Chat events written with the message, in the same transaction. */
  events: readonly NewConversationEvent[];
}

/**
 * Conversations (chat threads) and their messages. Every route and the chat turn address a
 * conversation by its platform id; messages point at its hex id.
 */
export interface ConversationStore {
  createConversation(conversation: NewConversation): Promise<Conversation>;
  /** By platform id, soft-deleted ones included. */
  getConversation(platformId: string): Promise<Conversation | undefined>;
  /**
   * Newest `last_activity_at` first. Leaves out hidden (worker) conversations and, unless asked,
   * soft-deleted ones; a conversation with no title and no message yet is listed.
   */
  listConversations(query: ConversationListQuery): Promise<Conversation[]>;
  renameConversation(platformId: string, title: string): Promise<Conversation | undefined>;
  /** Soft delete: sets `deleted_at` (once); the row and its messages stay. */
  deleteConversation(platformId: string): Promise<Conversation | undefined>;
  updateConversation(platformId: string, patch: ConversationPatch): Promise<Conversation | undefined>;
  /**
   * The newest `limit` messages older than the cursor, oldest first. Ordered by message id, so
   * paging back with `beforeId` = the first id of each page gives no gap and no repeat.
   */
  listMessages(conversationId: string, limit: number, cursor?: MessageCursor): Promise<Message[]>;
  /** Appends a message and bumps the conversation's `last_activity_at`. */
  addMessage(conversationId: string, message: NewMessage): Promise<Message>;
  /**
   * In one transaction: finds or creates the conversation, appends the user's message, and
   * queues its `chat_turn` job. `status` says whether the turn can start now or waits behind an
   * open turn of the conversation (or for a free slot).
   */
  acceptChatMessage(input: AcceptChatMessage): Promise<AcceptedChatMessage>;
  /** Appends the assistant's answer and its chat events in one transaction. */
  postChatReply(reply: PostChatReply): Promise<Message>;
  /** The chat turns being carried out and waiting, by conversation. */
  getChatTurnQueue(): Promise<ChatTurnQueue>;
  /**
   * Marks the conversation's isolation environment destroyed and clears the binding (and a cwd
   * inside it), in one transaction. Undefined when the conversation is unknown or has none.
   */
  releaseConversationWorktree(
    platformId: string,
  ): Promise<{ conversation: Conversation; environment: IsolationEnvironment | undefined } | undefined>;
}
