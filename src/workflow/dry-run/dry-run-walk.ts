import type { DryRunDecision, DryRunNode, DryRunTrace } from './trace.js';
import { topologicalOrder } from '../graph/graph.js';
import { evaluateTriggerRule, type DependencyOutcome } from '../graph/trigger-rule.js';
import { bodyWithGroupDefaults } from '../schema/loop-group-defaults.js';
import type { LoopGroupNode, WorkflowNode } from '../schema/node-schema.js';
import type { WorkflowDefinition } from '../schema/workflow-schema.js';
import type { InputValue } from '../schema/input-types.js';
import type { VariableValues } from '../substitution/variables.js';
import { describeStubNode, dryRunKindOf, type DescribedNode, type DryRunKindDeps } from './dry-run-kinds.js';
import { decideStubWhen, dryRunVariables, type StubLookup, type StubProducer, type StubScope } from './stub-values.js';

/**
 * A dry run: the workflow's graph walked in a topological order with a stub in place of each
 * node's work. Nothing runs, nothing is written, no provider is called: each node is decided as
 * the scheduler decides it (trigger rule, then `when:`) on the values a dry run has, and
 * described as it would run (dry-run-kinds.ts). Approvals are taken as approved, loops run one
 * iteration (a loop_group's body is walked once, its nodes listed after it), a `cancel:` that
 * would run leaves every later node `not_reached`.
 */

export interface DryRunInput {
  definition: WorkflowDefinition;
  /** Checked and defaulted as for a run (workflow/schema/run-inputs.ts). */
  inputs: Record<string, InputValue>;
  message: string;
  /** Run variables the request decides (`$BASE_BRANCH` from its baseBranch, `$DOCS_DIR`). */
  variables: VariableValues;
}

/** How a node ended in the walk, for its dependants' trigger rules: `maybe` when it may be skipped at run time. */
type WalkOutcome = 'completed' | 'skipped' | 'failed' | 'maybe' | 'not_reached';

interface Walked {
  outcome: WalkOutcome;
  producer: StubProducer;
}

export function walkDryRun(input: DryRunInput, deps: DryRunKindDeps): DryRunTrace {
  const walk = new DryRunWalk(input, deps);
  walk.walkLevel(input.definition.nodes, '', () => undefined);
  const counts = { run: 0, skip: 0, conditional: 0, fail: 0, not_reached: 0 };
  for (const node of walk.nodes) counts[node.decision] += 1;
  return {
    dryRun: true,
    workflow: input.definition.name,
    inputs: input.inputs,
    nodes: walk.nodes,
    counts,
    notes: [
      'Nothing was run and nothing was written: no run, no worktree, no provider call, no process.',
      'A node that would run yields <dry-run output of ID> as its output; a real run has the real output there.',
      'Texts show references filled in for reading; a real run passes values to bash and script bodies in environment variables, never as code.',
      'Values only a real run has (its id, its folders, $BASE_BRANCH unless the request gives one) show as <dry-run NAME>.',
    ],
  };
}

class DryRunWalk {
  readonly nodes: DryRunNode[] = [];
  private cancelledBy: string | undefined;
  private readonly variables: VariableValues;

  constructor(
    private readonly input: DryRunInput,
    private readonly deps: DryRunKindDeps,
  ) {
    this.variables = dryRunVariables(input.message, input.variables);
  }

  /** Walks one level (the workflow's nodes, or a loop_group's body) whose outputs are read before `outer`'s. */
  walkLevel(nodes: readonly WorkflowNode[], prefix: string, outer: StubLookup): void {
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const walked = new Map<string, Walked>();
    const lookup: StubLookup = (id) => walked.get(id)?.producer ?? outer(id);
    const scope: StubScope = { variables: this.variables, inputs: this.input.inputs, lookup };
    for (const id of topologicalOrder(nodes.map((n) => ({ id: n.id, depends_on: n.depends_on ?? [] })))) {
      const node = byId.get(id)!;
      const path = `${prefix}${id}`;
      const base = {
        id: path,
        dependsOn: node.depends_on ?? [],
        triggerRule: node.trigger_rule ?? 'all_success',
        ...(node.when !== undefined ? { when: node.when } : {}),
      };
      const decided = this.decide(node, walked, scope);
      // Only a node that would (or may) run is described: its command file read, its model bound.
      const described = decided.decision === 'run' || decided.decision === 'conditional' ? describeStubNode(node, path, scope, this.deps) : undefined;
      // One that could not start fails, as its first attempt would.
      const decision: DryRunDecision = described?.fail !== undefined ? 'fail' : decided.decision;
      const reason = described?.fail ?? decided.reason;
      const entry: DryRunNode = {
        ...base,
        kind: described?.kind ?? dryRunKindOf(node),
        decision,
        ...(reason !== undefined ? { reason } : {}),
        ...(described?.shown ?? {}),
        ...(described && decision !== 'fail' ? { output: described.output } : {}),
      };
      this.nodes.push(entry);
      walked.set(id, this.settle(decision, described, reason));
      if ('cancel' in node && decision === 'run') this.cancelledBy = path;
      if ('loop_group' in node && (decision === 'run' || decision === 'conditional')) {
        this.walkLevel(bodyWithGroupDefaults(node as LoopGroupNode), `${path}/`, lookup);
      }
    }
  }

  /** The scheduler's decision for a node whose dependencies ended: its trigger rule, then its `when:`. */
  private decide(node: WorkflowNode, walked: ReadonlyMap<string, Walked>, scope: StubScope): { decision: DryRunDecision; reason?: string } {
    if (this.cancelledBy !== undefined) {
      return { decision: 'not_reached', reason: `the run is cancelled by node '${this.cancelledBy}' before this node` };
    }
    const deps = (node.depends_on ?? []).map((id) => ({ id, outcome: walked.get(id)?.outcome ?? 'completed' }));
    const rule = node.trigger_rule ?? 'all_success';
    // A node that may be skipped at run time is decided both ways: the rules are monotone, so
    // "completed" is the best case and "skipped" the worst.
    const asIf = (maybe: 'completed' | 'skipped'): DependencyOutcome[] =>
      deps.map((d) => ({ id: d.id, outcome: d.outcome === 'maybe' ? maybe : d.outcome === 'not_reached' ? 'skipped' : d.outcome }));
    const best = evaluateTriggerRule(rule, asIf('completed'));
    const worst = evaluateTriggerRule(rule, asIf('skipped'));
    if (!best.run) {
      const { kind, origin } = best.cause;
      return { decision: 'skip', reason: `trigger rule ${rule}: dependency '${origin}' ${kind === 'upstream_failed' ? 'would fail' : 'is skipped'}` };
    }
    let conditional: string | undefined;
    if (!worst.run) conditional = `trigger rule ${rule}: runs only if '${worst.cause.origin}' runs (it may be skipped at run time)`;
    if (node.when === undefined) return conditional ? { decision: 'conditional', reason: conditional } : { decision: 'run' };
    const when = decideStubWhen(node.when, scope);
    switch (when.value) {
      case true:
        return conditional ? { decision: 'conditional', reason: conditional } : { decision: 'run', reason: `when: ${node.when} is true` };
      case false:
        return { decision: 'skip', reason: `when: ${node.when} is false` };
      case 'parse_error':
        return { decision: 'skip', reason: `when: ${node.when} cannot be parsed (a run skips such a node)` };
      case 'error':
        return { decision: 'fail', reason: `when condition failed: ${when.error}` };
      case 'unknown':
        return { decision: 'conditional', reason: `when: ${node.when} depends on a runtime value (${when.runtime.join(', ')})` };
    }
  }

  private settle(decision: DryRunDecision, described: DescribedNode | undefined, reason: string | undefined): Walked {
    const output = described?.output ?? '';
    const known = described?.known ?? false;
    switch (decision) {
      case 'run':
        return { outcome: 'completed', producer: known ? { state: 'known', output } : { state: 'stub', output } };
      case 'conditional':
        return { outcome: 'maybe', producer: { state: 'maybe', output } };
      case 'skip':
        return { outcome: 'skipped', producer: { state: 'skipped' } };
      case 'fail':
        return { outcome: 'failed', producer: { state: 'failed', error: reason ?? 'it would fail' } };
      case 'not_reached':
        return { outcome: 'not_reached', producer: { state: 'skipped' } };
    }
  }
}
