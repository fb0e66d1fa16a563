import { attemptEndedEvent, attemptStartedEvent } from '../../../records/index.js';
import type { InstallKey } from '../../../shared/secrets/install-key.js';
import type { Logger } from '../../../shared/log.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { GitHubWorkflow } from '../../../workflow/schema/github-writes.js';
import { GitHubRequestError } from '../../../github/github-client.js';
import { gitHubClientOfHook } from '../../../github/hook-client.js';
import { makeEngineWrite, writeMarkerOf, type EngineWrite, type WriteTarget } from '../../../github/engine-writes.js';
import { attemptCloser } from '../../../worker/attempt-closer.js';
import type { SubstituteText } from '../../run/node-context.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { PlannedNode } from '../../run/run-plan.js';
import { nodeAttemptRef, recordRefusedAttempt } from '../attempt-records.js';
import type { GitHubAction } from './action.js';

/** GitHub takes a comment or a pull request's body of at most 65,536 characters; the marker line takes the rest. */
const BODY_MAX = 65_000;
const LABEL_MAX = 100;

export interface GitHubWriteDeps {
  store: Store;
  run: Pick<Run, 'id' | 'conversation_id' | 'metadata'>;
  caps: GitHubWorkflow['writes'];
  installKey: () => InstallKey;
  substituteText: SubstituteText;
  log: Pick<Logger, 'info' | 'warn'>;
}

/**
 * `github:` nodes. The texts are substituted, the write is reserved in the store against its
 * cap (a write past it fails the node, and nothing is written), then made on the run's issue or
 * pull request with its hook's token, and what GitHub answered is recorded. Reserving first and
 * marking the write (github/engine-writes.ts) is what makes a retry, a resume or a take-over of
 * the node find the write it made instead of making another.
 */
export class GitHubWriteHandler implements NodeHandler<GitHubAction> {
  constructor(private readonly deps: GitHubWriteDeps) {}

  async runAttempt(attempt: NodeAttempt<GitHubAction>): Promise<AttemptOutcome> {
    const { store, run } = this.deps;
    const node = attempt.node;
    const kind = node.action.write;
    const refuse = (error: string) => recordRefusedAttempt(store, run, attempt, { error: `Node '${node.id}': ${error}`, failureKind: 'config', retryable: false });

    const write = this.writeOf(node);
    if ('error' in write) return refuse(write.error);
    const target = await this.targetOf();
    if ('error' in target) return refuse(target.error);
    const cap = this.deps.caps[kind];
    if (cap === undefined) return refuse(`the workflow declares no GitHub ${kind} writes ('github.writes.${kind}')`);

    const key = `${kind}:${attempt.path}`;
    const reservation = await store.reserveGitHubWrite({ runId: run.id, key, kind, cap });
    if (!reservation.reserved) {
      if (reservation.why === 'run_not_found') return refuse(`run ${run.id} is gone`);
      return refuse(`this run has made ${reservation.used} GitHub ${kind} write${reservation.used === 1 ? '' : 's'}, the most the workflow allows ('github.writes.${kind}: ${cap}'): nothing was written`);
    }

    const ref = nodeAttemptRef(run, attempt, new Date().toISOString());
    await store.appendEvents([attemptStartedEvent(ref)]);
    const started = Date.now();
    const end = (ending: Parameters<typeof attemptEndedEvent>[1]) => attemptCloser(store).close('handler', [attemptEndedEvent(ref, ending, Date.now() - started)]);
    try {
      const done = await makeEngineWrite(target, write, writeMarkerOf(run.id, key), { known: reservation.write.githubId, retried: reservation.existing });
      const url = done.url ?? reservation.write.url;
      await store.recordGitHubWrite({ runId: run.id, key, githubId: done.githubId, url });
      this.deps.log.info({ runId: run.id, nodeId: node.id, kind, repository: target.repository, number: target.number, again: reservation.existing }, 'github.write_made');
      const output = JSON.stringify({ kind, id: done.githubId, url });
      await end({ status: 'completed', output: { text: output } });
      return { status: 'completed', output };
    } catch (err) {
      if (!(err instanceof GitHubRequestError)) throw err;
      const error = `Node '${node.id}': GitHub refused the ${kind.replace('_', ' ')} on ${target.repository}#${target.number}: ${err.message}`;
      const ending = err.retryable ? ({ status: 'failed', error, failureKind: 'transient' } as const) : ({ status: 'failed', error, failureKind: 'fatal', retryable: false } as const);
      await end(ending);
      return ending;
    }
  }

  /** The node's write, its texts substituted; values are data only, bound for a JSON body. */
  private writeOf(node: PlannedNode<GitHubAction>): EngineWrite | { error: string } {
    const { block } = node.action;
    const texts: string[] = [];
    const sub = (text: string): string | undefined => {
      const done = this.deps.substituteText(node, text);
      if (!done.ok) {
        texts.push(done.error);
        return undefined;
      }
      return done.text;
    };
    let write: EngineWrite;
    if (block.comment !== undefined) {
      write = { kind: 'comment', body: sub(block.comment) ?? '' };
    } else if (block.label !== undefined) {
      write = { kind: 'label', labels: [block.label].flat().map((l) => (sub(l) ?? '').trim()) };
    } else {
      const pull = block.pull_request!;
      const base = pull.base === undefined ? undefined : sub(pull.base)?.trim();
      write = { kind: 'pull_request', title: (sub(pull.title) ?? '').trim(), body: pull.body === undefined ? '' : (sub(pull.body) ?? ''), head: (sub(pull.head) ?? '').trim(), base, draft: pull.draft ?? false };
    }
    if (texts.length > 0) return { error: texts.join('; ') };
    if (write.kind === 'comment' && write.body.trim() === '') return { error: 'the comment is empty once substituted: GitHub takes no empty comment' };
    if ((write.kind === 'comment' || write.kind === 'pull_request') && write.body.length > BODY_MAX) {
      return { error: `the ${write.kind === 'comment' ? 'comment' : "pull request's body"} is ${write.body.length} characters once substituted; GitHub takes at most ${BODY_MAX}` };
    }
    if (write.kind === 'label') {
      const bad = write.labels.find((l) => l === '' || l.length > LABEL_MAX);
      if (bad !== undefined) return { error: `a label is ${bad === '' ? 'empty' : `${bad.length} characters long`} once substituted; a label has 1 to ${LABEL_MAX} characters` };
    }
    if (write.kind === 'pull_request') {
      if (write.title === '' || write.head === '' || write.base === '') return { error: "the pull request's title, head and base must not be empty once substituted" };
    }
    return write;
  }

  /** The issue or pull request the run is about, and a client with its hook's token. */
  private async targetOf(): Promise<WriteTarget | { error: string }> {
    const { run } = this.deps;
    const { github, hook } = run.metadata;
    if (!github || !hook) {
      return {
        error: `a github node writes to the issue or pull request of the GitHub hook that started its run, and run ${run.id} was not started by one: start this workflow from GitHub (a \`/cairn run\` comment, an \`@cairn\` mention or a label; docs/github.md)`,
      };
    }
    const stored = await this.deps.store.getHook(hook.name);
    if (!stored || stored.id !== hook.id || !stored.github || !stored.sealed_github_token) {
      return { error: `the GitHub hook '${hook.name}' that started run ${run.id} is gone (deleted or made again), and with it the token this write needs` };
    }
    try {
      return { client: gitHubClientOfHook(this.deps.installKey(), { ...stored, github: stored.github }), repository: github.repository, number: github.number };
    } catch (err) {
      return { error: `the token of GitHub hook '${hook.name}' cannot be read (${(err as Error).message}): replace it (PUT /api/hooks/${hook.name}/github-token)` };
    }
  }
}
