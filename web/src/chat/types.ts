/**
 * The parts of the conversation routes' answers the chat page reads (docs/conversations.md,
 * docs/http-api.md). Kept to the fields used.
 */

export interface Conversation {
  id: string;
  platform_conversation_id: string;
  codebase_id: string | null;
  cwd: string | null;
  isolation_env_id: string | null;
  title: string | null;
  last_activity_at: string;
  created_at: string;
}

export interface Message {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  /** A JSON object as text, e.g. `{"category":"workflow_result","workflowResult":{...}}`. */
  metadata: string;
  created_at: string;
}

/** One frame of a conversation's stream (`GET /api/stream/{conversationId}`) the page acts on. */
export type ChatFrame =
  | { type: 'conversation_lock'; locked: boolean; seq?: number }
  | { type: 'text'; content: string; isComplete: boolean; category?: string; seq?: number }
  | { type: 'retract'; seq?: number }
  | { type: 'error'; message: string; seq?: number }
  | { type: 'workflow_dispatch'; workflowName: string; workerConversationId: string; seq?: number }
  | { type: 'heartbeat' | 'workflow_status' | 'dag_node' | 'workflow_event'; seq?: number };

export const chatHref = (conversationId?: string): string => (conversationId ? `/chat/${encodeURIComponent(conversationId)}` : '/chat');

/** The run a `workflow_result` message reports, read from its metadata. */
export function resultRunId(message: Message): string | undefined {
  try {
    const metadata = JSON.parse(message.metadata) as { workflowResult?: { runId?: unknown } };
    return typeof metadata.workflowResult?.runId === 'string' ? metadata.workflowResult.runId : undefined;
  } catch {
    return undefined;
  }
}
