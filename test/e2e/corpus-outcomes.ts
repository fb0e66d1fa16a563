import type { NodeSummaryStatus } from '../../src/cli/node-summary.js';

/**
 * Every workflow of the upstream's end-to-end corpus (test/fixtures/corpus/upstream-e2e/workflows)
 * with what the upstream says it ends as (its header comments, its nodes, its engine's join and
 * condition rules): the run's status and each node's, as `cairn run get` shows them.
 *
 * A node's parts that `cairn run get` shows beside it are in the rows too: a loop's `<id>/body`,
 * a loop group's `<id>/until_bash` check, a fan-out's items `<id>[i]` and their nodes `<id>[i]/<node>`
 * (the upstream's child runs).
 *
 * `here: true`: it runs here to the end as the upstream runs it (corpus-server.test.ts runs it on
 * one real server, its AI nodes on the real vendor CLIs against local stand-ins, and asserts this
 * row). `here: false`: it cannot, and `reason` says exactly why; `runsHere`, when given, is what
 * it ends as on this machine instead, which the test asserts too (given only where that costs no
 * AI call: the suite's time is CPU-bound).
 */

export type RunStatus = 'completed' | 'failed' | 'cancelled';

export interface Outcome {
  run: RunStatus;
  nodes: Record<string, NodeSummaryStatus>;
}

export type CorpusRow =
  | ({ file: string; here: true } & Outcome)
  | ({ file: string; here: false; reason: string; runsHere?: Outcome } & Outcome);

const NO_UV =
  'its Python script node (`runtime: uv`) needs uv, which these machines cannot install (they reach only the npm registry and Debian packages, and neither ships uv)';

const all = (status: NodeSummaryStatus, ids: string[]) => Object.fromEntries(ids.map((id) => [id, status])) as Record<string, NodeSummaryStatus>;

/** e2e-echo-child over ["one", "two", "fail-3"]: the third child fails. */
const echoItems = { ...all('completed', ['spread[0]', 'spread[0]/echo', 'spread[1]', 'spread[1]/echo']), 'spread[2]': 'failed', 'spread[2]/echo': 'failed' } as const;

const deterministicNodes = ['bash-echo', 'script-bun', 'bash-read-output', 'branch-true', 'merge-node'];
const piAllNodes = ['prompt-node', 'command-node', 'loop-node', 'loop-node/body', 'bash-json-node', 'script-bun-node', 'downstream', 'gated'];
const copilotAllNodes = [...piAllNodes, 'structured-node', 'structured-check'];

export const corpusOutcomes: CorpusRow[] = [
  // Pi's extension model and a local Ollama model: here both go to the one server Cairn points Pi at.
  { file: 'archon-test-pi.yaml', here: true, run: 'completed', nodes: all('completed', ['hello', 'hello-ollama', 'verify']) },
  { file: 'e2e-claude-smoke.yaml', here: true, run: 'completed', nodes: all('completed', ['simple', 'assert']) },
  { file: 'e2e-codex-smoke.yaml', here: true, run: 'completed', nodes: all('completed', ['simple', 'structured', 'assert']) },
  {
    file: 'e2e-container-smoke.yaml',
    here: false,
    reason:
      'it is run with the upstream\'s `--container` mode, each bash node exec\'d in a Docker runner container over an overlay of the folder (its first node fails unless the hostname is a container id and /mnt/lower, /mnt/upper exist); these machines have no container runtime, and Cairn has no container mode (docs/workflows.md, "Coming from Archon")',
    run: 'completed',
    nodes: all('completed', ['assert-in-container', 'overlay-write', 'overlay-read']),
  },
  // A manual test: Ctrl-C once streaming began. Cairn runs have no foreground: the same abort is `cairn run cancel`.
  { file: 'e2e-copilot-abort.yaml', here: true, run: 'cancelled', nodes: { long: 'cancelled' } },
  {
    file: 'e2e-copilot-all-nodes-smoke.yaml',
    here: false,
    reason: NO_UV,
    run: 'completed',
    nodes: all('completed', [...copilotAllNodes, 'script-python-node', 'merge', 'assert']),
  },
  {
    file: 'e2e-deterministic.yaml',
    here: false,
    reason: NO_UV,
    run: 'completed',
    nodes: { ...all('completed', [...deterministicNodes, 'script-python', 'verify-all']), 'branch-false': 'skipped' },
    runsHere: { run: 'failed', nodes: { ...all('completed', deterministicNodes), 'branch-false': 'skipped', 'script-python': 'failed', 'verify-all': 'skipped' } },
  },
  { file: 'e2e-echo-child.yaml', here: true, run: 'completed', nodes: { echo: 'completed' } },
  { file: 'e2e-fanout-alldone.yaml', here: true, run: 'completed', nodes: { ...all('completed', ['spread', 'verify']), ...echoItems } },
  // Its header: "This workflow is EXPECTED TO FAIL": the failure is spread's, and report is skipped.
  { file: 'e2e-fanout-allsuccess.yaml', here: true, run: 'failed', nodes: { spread: 'failed', ...echoItems, report: 'skipped' } },
  {
    file: 'e2e-joins.yaml',
    here: true,
    run: 'completed',
    nodes: { ...all('completed', ['seed', 'taken', 'join-all-done', 'join-none-failed', 'after-skip', 'countdown', 'countdown/tick', 'countdown/until_bash', 'verify']), skipped: 'skipped' },
  },
  {
    file: 'e2e-minimax-smoke.yaml',
    here: false,
    reason:
      'its last node passes only when a session log of Pi\'s own `minimax` provider is in ~/.pi/agent/sessions, which only a real MiniMax account (the network) writes; Cairn sends a Pi model to the one server it points Pi at and keeps Pi\'s sessions in the node\'s folder (docs/workflows.md, "Coming from Archon")',
    run: 'completed',
    nodes: all('completed', ['hello', 'identify', 'json', 'assert']),
  },
  { file: 'e2e-mixed-providers.yaml', here: true, run: 'completed', nodes: all('completed', ['claude-node', 'codex-node', 'assert']) },
  {
    file: 'e2e-pi-all-nodes-smoke.yaml',
    here: false,
    reason: NO_UV,
    run: 'completed',
    nodes: all('completed', [...piAllNodes, 'script-python-node', 'merge', 'assert']),
  },
  { file: 'e2e-pi-smoke.yaml', here: true, run: 'completed', nodes: all('completed', ['simple', 'assert']) },
  // Its header: bad-ref "FAILS ... because it references a field that is NOT declared in classify's output_format schema".
  { file: 'e2e-structured-output-failfast.yaml', here: true, run: 'failed', nodes: { classify: 'completed', 'bad-ref': 'failed' } },
  { file: 'e2e-structured-output.yaml', here: true, run: 'completed', nodes: all('completed', ['classify', 'use-fields', 'emit-json', 'use-schemaless']) },
  { file: 'e2e-worktree-disabled.yaml', here: true, run: 'completed', nodes: all('completed', ['print-cwd', 'assert-live-checkout']) },
  {
    file: 'minimax-isolate.yaml',
    here: true,
    run: 'completed',
    nodes: all('completed', ['small-plain', 'small-structured', 'small-structured-lowthink', 'large-plain']),
  },
  { file: 'minimax-seq.yaml', here: true, run: 'completed', nodes: all('completed', ['a-default-plain', 'b-default-structured', 'c-low-structured', 'd-low-plain']) },
  { file: 'minimax-smoke.yaml', here: true, run: 'completed', nodes: { ping: 'completed' } },
];
