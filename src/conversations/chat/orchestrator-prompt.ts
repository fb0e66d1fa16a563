import type { Codebase } from '../../store/schemas/codebase.js';
import type { Message } from '../../store/schemas/conversation.js';
import type { WorkflowEntry } from '../../workflow/catalog/discover-workflows.js';

/**
 * What the default assistant is sent for a plain message (REFERENCE §8.5): a system prompt that
 * lists the registered projects and the discovered workflows with their descriptions and says
 * how to start one, and a prompt made of the conversation's recent history and the message.
 * Pure: the caller reads the rows.
 */

/** Messages of history sent with a message, at most (the newest ones before it). */
export const HISTORY_MESSAGES = 20;
/** Characters of one history message sent, at most. */
const HISTORY_MESSAGE_CHARS = 4_000;
/** Projects and workflows listed, at most each. */
const LISTED_MAX = 100;
const DESCRIPTION_CHARS = 300;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

export interface OrchestratorContext {
  codebases: readonly Codebase[];
  workflows: readonly WorkflowEntry[];
  /** The conversation's project (codebase id), if it is bound to one. */
  currentProject: string | null;
}

export function orchestratorSystemPrompt(ctx: OrchestratorContext): string {
  const projects = ctx.codebases.slice(0, LISTED_MAX).map((c) => `- ${c.id}${c.name !== c.id ? ` (name: ${c.name})` : ''}`);
  const workflows = ctx.workflows
    .slice(0, LISTED_MAX)
    .map((w) => `- ${w.workflow.name}: ${cut(w.workflow.description.replace(/\s+/g, ' ').trim(), DESCRIPTION_CHARS) || '(no description)'}`);
  return [
    'You are Cairn, the assistant of a local service that runs YAML workflows for AI coding assistants.',
    'Answer the user directly when you can. When the user asks for work that one of the workflows below does, start it by',
    'writing, on a line of its own and nothing else on that line:',
    '/invoke-workflow <workflow name> --project <project id>',
    'The workflow then runs in the background with the user\'s message; do not describe it further.',
    'Use only the workflow names and project ids listed below. If the user needs a project that is not registered, tell',
    'them to register it with: cairn codebase add <path>',
    '',
    '## Registered projects',
    ...(projects.length > 0 ? projects : ['(none registered)']),
    ...(ctx.codebases.length > LISTED_MAX ? [`(and ${ctx.codebases.length - LISTED_MAX} more)`] : []),
    '',
    `Project of this conversation: ${ctx.currentProject ?? 'none'}`,
    '',
    '## Workflows',
    ...(workflows.length > 0 ? workflows : ['(none discovered)']),
    ...(ctx.workflows.length > LISTED_MAX ? [`(and ${ctx.workflows.length - LISTED_MAX} more)`] : []),
  ].join('\n');
}

/** The conversation so far (oldest first, already bounded by the caller) and the new message. */
export function orchestratorPrompt(history: readonly Pick<Message, 'role' | 'content'>[], message: string): string {
  if (history.length === 0) return message;
  const lines = history.map((m) => `[${m.role}]: ${cut(m.content, HISTORY_MESSAGE_CHARS)}`);
  return ['Conversation so far:', ...lines, '', 'New message from the user:', message].join('\n');
}
