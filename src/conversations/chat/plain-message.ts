import type { Codebase } from '../../store/schemas/codebase.js';
import { assistantFailureText, redact } from './assistant-failure.js';
import { readDirectives, type InvokeDirective, type RegisterDirective } from './assistant-directives.js';
import { HISTORY_MESSAGES, orchestratorPrompt, orchestratorSystemPrompt } from './orchestrator-prompt.js';
import { findCodebase } from './project-commands.js';
import { PROVIDER_SETUP_TEXT, unusableAssistantText } from './provider-setup.js';
import { answer, type ChatAnswer, type ChatDeps, type ChatTurn } from './turn-context.js';
import { dispatchWorkflow, projectCwd, type DispatchTarget } from './workflow-commands.js';

/**
 * A plain (non-slash) message (REFERENCE §8.5): the default assistant answers it, with the
 * registered projects, the discovered workflows and the recent history, its text streamed as it
 * comes. An `/invoke-workflow <name> --project <project>` line in the answer withdraws the
 * streamed text and starts that workflow in the background with the user's message, once its
 * name and project are found among the discovered workflows and the registered projects. A
 * `/register-project` line is never carried out (its path is the model's): the answer shows the
 * command the user can run. Without a configured provider, the answer says how to configure one.
 */
export async function answerPlainMessage(deps: ChatDeps, turn: ChatTurn): Promise<ChatAnswer> {
  if (!deps.assistant) return answer(PROVIDER_SETUP_TEXT);
  const assistant = await deps.assistant.forTurn(turn.userId);
  const status = assistant.status;
  if (!status.ready) {
    return answer(status.reason === 'not_configured' ? PROVIDER_SETUP_TEXT : unusableAssistantText(status.provider, status.detail));
  }
  const { conversation } = turn;
  const cwd = await projectCwd(deps, turn);
  const [codebases, { workflows }, history] = await Promise.all([
    deps.store.listCodebases(),
    deps.catalog.listAsync({ cwd }),
    deps.store.listMessages(conversation.id, HISTORY_MESSAGES, turn.messageId !== undefined ? { beforeId: turn.messageId } : undefined),
  ]);
  const reply = await assistant.ask({
    conversationId: conversation.platform_conversation_id,
    turnId: turn.turnId ?? String(deps.clock()),
    systemPrompt: orchestratorSystemPrompt({ codebases, workflows, currentProject: conversation.codebase_id }),
    prompt: orchestratorPrompt(history, turn.text),
    cwd,
  });
  if (reply.status === 'failed') {
    deps.log.warn({ provider: status.provider, failureClass: reply.failureClass, error: redact(reply.error ?? '', assistant.secrets) }, 'chat.assistant_failed');
    return answer(assistantFailureText(status.provider, reply.failureClass, reply.error, assistant.secrets), {
      retract: reply.streamed,
      metadata: { assistantFailure: { provider: status.provider, class: reply.failureClass ?? 'unknown' } },
    });
  }
  const text = redact(reply.text, assistant.secrets);
  const directives = readDirectives(text);
  if (directives.invoke) return invokeWorkflow(deps, turn, directives.invoke, codebases, directives.prose);
  const finalChunk = reply.streamed ? redact(reply.tail, assistant.secrets) : text;
  if (text.trim() === '') return answer(`The assistant (${status.provider}) sent an empty answer. Send the message again.`, { retract: reply.streamed });
  if (directives.register.length > 0) {
    const note = registerNote(directives.register);
    return answer(`${text}\n\n${note}`, { finalChunk: `${finalChunk}\n\n${note}` });
  }
  return answer(text, { finalChunk });
}

/** A hostile value shown back in a refusal: one line, no backticks, cut. */
function shown(value: string): string {
  const flat = value.replace(/[\s`]+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}

async function invokeWorkflow(
  deps: ChatDeps,
  turn: ChatTurn,
  directive: InvokeDirective,
  codebases: readonly Codebase[],
  prose: string,
): Promise<ChatAnswer> {
  const refuse = (why: string) => answer([...(prose ? [prose, ''] : []), why, 'Nothing was started.'].join('\n'), { retract: true });
  const registered = codebases.map((c) => c.id).join(', ');
  if (!directive.name) return refuse(`The assistant asked to run a workflow named '${shown(directive.rawName)}', which is not a valid workflow name.`);
  const { conversation } = turn;
  let codebase: Codebase | undefined;
  if (directive.rawProject !== undefined) {
    codebase = directive.project !== undefined ? findCodebase(codebases, directive.project) : undefined;
    if (!codebase) {
      return refuse(
        `The assistant asked to run '${directive.name}' on project '${shown(directive.rawProject)}', which is not a registered project. ${registered ? `Registered: ${registered}.` : 'No projects are registered: register one with `cairn codebase add <path>`.'}`,
      );
    }
  } else if (conversation.codebase_id) {
    codebase = codebases.find((c) => c.id === conversation.codebase_id);
  } else if (codebases.length === 1) {
    codebase = codebases[0];
  } else if (codebases.length === 0) {
    return refuse('No projects registered. Register one with `cairn codebase add <path>`, then ask again.');
  } else {
    return refuse(`Which project should this workflow run on? Registered: ${registered}.`);
  }
  if (!codebase) return refuse(`This conversation's project '${shown(conversation.codebase_id ?? '')}' is no longer registered. Use /setproject <name>.`);
  const target: DispatchTarget =
    codebase.id === conversation.codebase_id
      ? { cwd: await projectCwd(deps, turn), codebaseId: codebase.id }
      : { cwd: codebase.default_cwd, codebaseId: codebase.id };
  // The name is looked up among the workflows discovered for the project, never used as a path.
  const { workflows } = await deps.catalog.listAsync({ cwd: target.cwd });
  const entry = workflows.find((w) => w.workflow.name === directive.name);
  if (!entry) {
    return refuse(
      `The assistant asked to run '${directive.name}', but no workflow of that name is discovered for project ${codebase.id}. Type /workflow list for the workflows you can run.`,
    );
  }
  return { ...(await dispatchWorkflow(deps, turn, entry.workflow.name, turn.text, target)), retract: true };
}

/** `/register-project` lines are not carried out: the user is shown the command to run. */
function registerNote(lines: readonly RegisterDirective[]): string {
  const commands = lines.map((l) => `\`cairn codebase add ${l.path ?? '<path>'}\``);
  return [
    'Cairn does not register projects on the assistant\'s word. To register it, run:',
    ...[...new Set(commands)].map((c) => `- ${c}`),
  ].join('\n');
}
