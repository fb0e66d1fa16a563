import type { Codebase } from '../../store/schemas/codebase.js';
import { answer, type ChatAnswer, type ChatDeps, type ChatTurn } from './turn-context.js';
import { removeWorktreeCheckout } from '../../codebases/worktree-removal.js';

/** A registered codebase by id (`owner/repo`) or name, exactly, then ignoring case. */
export function findCodebase(codebases: readonly Codebase[], wanted: string): Codebase | undefined {
  const lower = wanted.toLowerCase();
  return (
    codebases.find((c) => c.id === wanted || c.name === wanted) ??
    codebases.find((c) => c.id.toLowerCase() === lower || c.name.toLowerCase() === lower)
  );
}

/**
 * `/setproject <name>`: binds the conversation to a registered codebase and clears the working
 * directory override and the worktree binding. It always works, a stale working directory included.
 */
export async function setProject(deps: ChatDeps, turn: ChatTurn, name: string): Promise<ChatAnswer> {
  if (!name) return answer('Usage: /setproject <name> (a registered codebase id such as owner/repo, or its name)');
  const codebases = await deps.store.listCodebases();
  const codebase = findCodebase(codebases, name);
  if (!codebase) {
    const known = codebases.map((c) => c.id).join(', ');
    return answer(
      known
        ? `No registered project named '${name}'. Registered: ${known}`
        : `No registered project named '${name}'. No projects are registered yet: register one with POST /api/codebases.`,
    );
  }
  await deps.store.updateConversation(turn.conversation.platform_conversation_id, {
    codebase_id: codebase.id,
    cwd: null,
    isolation_env_id: null,
  });
  return answer(`Project set to **${codebase.id}** (${codebase.default_cwd}).`);
}

/** `/worktree list|remove`. */
export async function worktreeCommand(deps: ChatDeps, turn: ChatTurn, args: string[]): Promise<ChatAnswer> {
  const { conversation } = turn;
  const [sub] = args;
  if (sub === 'list') {
    if (!conversation.codebase_id) return answer('No project is set for this conversation. Use /setproject <name> first.');
    const envs = await deps.store.listIsolationEnvironments(conversation.codebase_id);
    if (envs.length === 0) return answer(`No worktrees for **${conversation.codebase_id}**.`);
    const lines = envs.map(
      (e) => `- ${e.id}${e.id === conversation.isolation_env_id ? ' (this conversation)' : ''}: ${e.working_path}` +
        `${e.branch_name ? ` on ${e.branch_name}` : ''} — ${e.status}`,
    );
    return answer([`Worktrees of **${conversation.codebase_id}**:`, ...lines].join('\n'));
  }
  if (sub === 'remove') {
    if (!conversation.isolation_env_id) return answer('This conversation is not using a worktree.');
    const released = await deps.store.releaseConversationWorktree(conversation.platform_conversation_id);
    if (!released?.environment) {
      return answer(`This conversation's worktree (${conversation.isolation_env_id}) was no longer recorded; the binding is cleared.`);
    }
    const removal = await removeWorktreeCheckout(deps.store, released.environment);
    return answer(`Worktree ${released.environment.id} is marked destroyed and this conversation no longer uses it. ${removal.detail}`);
  }
  return answer('Usage: /worktree list | /worktree remove');
}
