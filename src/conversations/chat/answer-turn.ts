import { existsSync } from 'node:fs';
import { answerPlainMessage } from './plain-message.js';
import { setProject, worktreeCommand } from './project-commands.js';
import { answer, type ChatAnswer, type ChatDeps, type ChatTurn } from './turn-context.js';
import { openRunsOf, projectCwd, workflowCommand } from './workflow-commands.js';

export const HELP_TEXT = [
  'Commands:',
  '- /help — this list',
  '- /status — the project, working directory, worktree and running workflows of this conversation',
  '- /setproject <name> — work on a registered codebase (by id or name); clears the working-directory override',
  '- /worktree list — the worktrees of the project',
  '- /worktree remove — stop using this conversation’s worktree',
  '- /workflow list — the workflows you can run',
  '- /workflow run <name> [message] — start a workflow in the background',
  '- /workflow status — the workflows of this conversation that are still going',
  '- /workflow cancel <id> — cancel a run',
  '- /workflow resume <id> [--reload] — continue a failed or paused run (what succeeded is not run again; --reload takes its files as they are now)',
  '- /workflow abandon <id> — end a running, paused or failed run for good',
  '- /workflow approve <id> [comment] — approve the gate a paused run waits at',
  '- /workflow reject <id> [reason] — reject it',
].join('\n');

/** The exact refusal of the contract; nothing else is written and nothing changes. */
export const staleCwdText = (path: string): string => `This conversation's working directory no longer exists: ${path}`;

/** Commands that recover a conversation whose working directory is gone: they run anyway. */
function isRecovery(command: string, args: readonly string[]): boolean {
  return command === '/setproject' || (command === '/worktree' && args[0] === 'remove');
}

async function status(deps: ChatDeps, turn: ChatTurn): Promise<ChatAnswer> {
  const c = turn.conversation;
  const runs = await openRunsOf(deps, c.platform_conversation_id);
  return answer(
    [
      `Conversation: ${c.platform_conversation_id}`,
      `Project: ${c.codebase_id ?? 'none (use /setproject <name>)'}`,
      `Working directory: ${(await projectCwd(deps, turn)) ?? 'none'}`,
      `Worktree: ${c.isolation_env_id ?? 'none'}`,
      `Workflows running: ${runs.length}`,
    ].join('\n'),
  );
}

/**
 * Answers one chat turn: the stale working directory guard, then the deterministic slash
 * commands; any other text goes to the default assistant (plain-message.ts).
 */
export async function answerTurn(deps: ChatDeps, turn: ChatTurn): Promise<ChatAnswer> {
  const text = turn.text.trim();
  const [command = '', ...args] = text.startsWith('/') ? text.split(/\s+/) : [];
  const cwd = turn.conversation.cwd;
  if (cwd !== null && !existsSync(cwd) && !isRecovery(command, args)) {
    deps.log.warn(
      { conversationId: turn.conversation.platform_conversation_id, path: cwd, isolationEnvId: turn.conversation.isolation_env_id },
      'orchestrator.conversation_cwd_missing',
    );
    return { content: staleCwdText(cwd), persist: false };
  }
  if (!command) return answerPlainMessage(deps, turn);
  switch (command) {
    case '/help':
      return answer(HELP_TEXT);
    case '/status':
      return status(deps, turn);
    case '/setproject':
      return setProject(deps, turn, args.join(' '));
    case '/worktree':
      return worktreeCommand(deps, turn, args);
    case '/workflow':
      return workflowCommand(deps, turn, args, text.slice(command.length).trim());
    default:
      return answer(`Unknown command: ${command.length > 80 ? `${command.slice(0, 80)}…` : command}. Type /help for the list.`);
  }
}
