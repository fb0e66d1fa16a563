import { realpath } from 'node:fs/promises';
import { CairnError } from '../../shared/errors.js';
import type { Store } from '../../store/store.js';

/** The codebase a run works on, and the checkout its worktree is made from. */
export interface RunCodebaseBinding {
  codebaseId: string;
  /** The codebase's checkout (`default_cwd`): the run's working_path until the supervisor places it. */
  checkout: string;
}

/** Error texts of run binding; clients may match on them. */
export const runCodebaseText = {
  unknownId: (id: string) =>
    `Unknown codebaseId '${id}': no codebase is registered under it. List the registered ones with GET /api/codebases`,
  cwdMismatch: (cwd: string, id: string, checkout: string) =>
    `cwd '${cwd}' is not the checkout of codebase ${id} (${checkout}); pass only one of cwd and codebaseId, or make them agree`,
  branchWithoutCodebase:
    'branch applies only to a run on a registered codebase: pass codebaseId, or a cwd that is the checkout of a registered codebase',
} as const;

/**
 * Binds a run to the codebase `codebaseId` (the one place a run is bound; a conversation's
 * codebase comes through here too). An unknown id is the caller's mistake: 400 naming it.
 */
export async function bindRunToCodebase(store: Store, codebaseId: string): Promise<RunCodebaseBinding> {
  const codebase = await store.getCodebase(codebaseId);
  if (!codebase) throw new CairnError('VALIDATION_FAILED', runCodebaseText.unknownId(codebaseId));
  return { codebaseId: codebase.id, checkout: codebase.default_cwd };
}

/**
 * The codebase of a run request: the one named by `codebaseId`, else the one whose checkout is
 * `cwd` (compared as real paths), else (with neither) the codebase of the conversation the run is
 * attached to; undefined when none applies (the run works in cwd as given, or in a scratch
 * folder). Reads rows only: no git runs in the API for a run.
 */
export async function resolveRunCodebase(
  store: Store,
  request: { cwd: string | undefined; codebaseId: string | undefined; conversationId?: string | undefined },
): Promise<RunCodebaseBinding | undefined> {
  const cwdReal = request.cwd !== undefined ? await realpath(request.cwd).catch(() => request.cwd!) : undefined;
  if (request.codebaseId !== undefined) {
    const binding = await bindRunToCodebase(store, request.codebaseId);
    if (cwdReal !== undefined && cwdReal !== (await realpathOr(binding.checkout))) {
      throw new CairnError('CWD_INVALID', runCodebaseText.cwdMismatch(request.cwd!, binding.codebaseId, binding.checkout));
    }
    return binding;
  }
  if (cwdReal === undefined) {
    if (request.conversationId === undefined) return undefined;
    const conversation = await store.getConversation(request.conversationId);
    return conversation?.codebase_id ? bindRunToCodebase(store, conversation.codebase_id) : undefined;
  }
  // Registration stores the checkout's real path, so a plain comparison finds it; a checkout
  // whose path has since become a symlink is looked up by real path, all at once.
  const codebases = await store.listCodebases();
  const match =
    codebases.find((c) => c.default_cwd === cwdReal) ??
    (await Promise.all(codebases.map(async (c) => ((await realpathOr(c.default_cwd)) === cwdReal ? c : undefined)))).find(Boolean);
  return match ? bindRunToCodebase(store, match.id) : undefined;
}

function realpathOr(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}
