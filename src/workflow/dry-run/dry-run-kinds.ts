import { inputText, type InputValue } from '../schema/input-types.js';
import type { Effort } from '../../models/effort.js';
import type { ModelBinding } from '../../models/model-binding.js';
import { providersWithAdapter } from '../../shared/providers/available.js';
import type { DryRunModel, DryRunNode, DryRunNodeKind } from './trace.js';
import { DEFAULT_FAN_OUT_MAX_PARALLEL } from '../schema/node-blocks.js';
import type { WorkflowNode } from '../schema/node-schema.js';
import { fillText, stubOutputOf, type StubScope } from './stub-values.js';

/**
 * What each node kind would do, told without doing it: the text it would run or send (references
 * filled, stubs marked), the provider and model an AI node would call, a sentence on the kind,
 * and the stub output later nodes read. A node that could not start in a real run (its provider
 * unknown or without an adapter, its command file missing, a reference that cannot be read) says why.
 */

export interface DryRunKindDeps {
  /** The provider, model and effort a run would bind for an AI node (models/model-binding.ts over the run's layers and the workflow's defaults). */
  bind(node: { provider?: string | undefined; model?: string | undefined; effort?: Effort | undefined }): ModelBinding;
  /** A command file's text, as a run loads it (project, home, bundled). */
  loadCommand(name: string): { ok: true; text: string } | { ok: false; message: string };
}

export interface DescribedNode {
  kind: DryRunNodeKind;
  shown: Pick<DryRunNode, 'model' | 'text' | 'stubbed' | 'detail'>;
  /** What later nodes read as its output. */
  output: string;
  /** The output is what a real run gives too (a wait's '', a cancel's reason), not a stub. */
  known: boolean;
  /** Why a real run would fail the node before it did anything. */
  fail?: string;
}

type Text = { text?: string; stubbed?: string[]; fail?: string };

function filled(source: string | undefined, scope: StubScope): Text {
  if (source === undefined) return {};
  const result = fillText(source, scope);
  if (!result.ok) return { fail: result.error };
  return { text: result.text, ...(result.stubbed.length > 0 ? { stubbed: result.stubbed } : {}) };
}

type AiSource = { prompt: string } | { command: string };

/** An AI call: its binding and its prompt (inline, or a command file's). */
function aiCall(
  node: { provider?: string | undefined; model?: string | undefined; effort?: Effort | undefined },
  source: AiSource,
  scope: StubScope,
  deps: DryRunKindDeps,
): Text & { model?: DryRunModel } {
  const binding = deps.bind(node);
  if (!binding.ok) return { fail: binding.error };
  if (!providersWithAdapter.includes(binding.provider)) {
    return { fail: `provider '${binding.provider}' has no adapter in this version of Cairn (available: ${providersWithAdapter.join(', ')})` };
  }
  const model: DryRunModel = {
    provider: binding.provider,
    model: binding.model ?? null,
    ...(binding.effort !== undefined ? { effort: binding.effort } : {}),
    source: binding.modelSource,
    ...(binding.preset !== undefined ? { preset: binding.preset } : {}),
  };
  let prompt: string;
  if ('prompt' in source) prompt = source.prompt;
  else {
    const loaded = deps.loadCommand(source.command);
    if (!loaded.ok) return { model, fail: loaded.message };
    prompt = loaded.text;
  }
  return { model, ...filled(prompt, scope) };
}

function loopControl(control: { max_iterations: number; until?: string | undefined; until_bash?: string | undefined; interactive?: boolean | undefined }, extra?: string): string {
  const ends = [
    control.until !== undefined ? `the output signals ${control.until}` : undefined,
    control.until_bash !== undefined ? 'until_bash exits 0' : undefined,
    extra,
  ].filter((s): s is string => s !== undefined);
  return (
    `a dry run walks one iteration; a real run repeats it up to ${control.max_iterations} times` +
    (ends.length > 0 ? `, until ${ends.join(' or ')}` : '') +
    (control.interactive === true ? ', asking the user between iterations' : '')
  );
}

function withValues(values: Readonly<Record<string, InputValue>> | undefined, scope: StubScope): string {
  if (!values) return '';
  const shown = Object.entries(values).map(([key, value]) => {
    if (typeof value !== 'string') return `${key}=${inputText(value)}`;
    const text = fillText(value, scope);
    return `${key}=${text.ok ? text.text : value}`;
  });
  return shown.length > 0 ? `; with ${shown.join(', ')}` : '';
}

function fanOutDetail(items: string, scope: StubScope): string {
  const trimmed = items.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return `its ${parsed.length} listed item${parsed.length === 1 ? '' : 's'}`;
    } catch {
      // Not JSON: a run refuses it when it reaches the node; shown as written.
    }
  }
  const text = fillText(trimmed, scope);
  return text.ok && text.stubbed.length > 0
    ? `the items of ${trimmed} (a JSON array known only at run time)`
    : `the items of ${trimmed}`;
}

/** A node's written mode. */
export function dryRunKindOf(node: WorkflowNode): DryRunNodeKind {
  const kinds: readonly DryRunNodeKind[] = ['prompt', 'command', 'bash', 'script', 'loop', 'loop_group', 'approval', 'cancel', 'wait', 'github'];
  return kinds.find((kind) => kind in node) ?? 'workflow';
}

/** Describes one node as it would run; `path` names it in stub outputs. */
export function describeStubNode(node: WorkflowNode, path: string, scope: StubScope, deps: DryRunKindDeps): DescribedNode {
  const stub = stubOutputOf(path);
  const make = (kind: DryRunNodeKind, text: Text & { model?: DryRunModel }, detail: string, output = stub, known = false): DescribedNode => ({
    kind,
    shown: {
      ...(text.model ? { model: text.model } : {}),
      ...(text.text !== undefined ? { text: text.text } : {}),
      ...(text.stubbed ? { stubbed: text.stubbed } : {}),
      detail,
    },
    output,
    known,
    ...(text.fail !== undefined ? { fail: `Node '${path}': ${text.fail}` } : {}),
  });
  if ('prompt' in node) return make('prompt', aiCall(node, { prompt: node.prompt }, scope, deps), 'an AI call; a dry run calls no provider');
  if ('command' in node) {
    return make('command', aiCall(node, { command: node.command }, scope, deps), `an AI call with the command file ${node.command}.md; a dry run calls no provider`);
  }
  if ('bash' in node) return make('bash', filled(node.bash, scope), 'a shell body (sh); a dry run starts no process');
  if ('script' in node) return make('script', filled(node.script, scope), `a ${node.runtime} script; a dry run starts no process`);
  if ('loop' in node) {
    const { loop } = node;
    const body: Text & { model?: DryRunModel } =
      loop.bash !== undefined
        ? filled(loop.bash, scope)
        : aiCall(node, loop.command !== undefined ? { command: loop.command } : { prompt: loop.prompt ?? '' }, scope, deps);
    const until = loop.until_field !== undefined ? `its field ${loop.until_field} is true` : undefined;
    return make('loop', body, loopControl(loop, until));
  }
  if ('loop_group' in node) {
    const body = node.loop_group.nodes.map((n) => n.id).join(', ');
    return make('loop_group', {}, `a loop over its body (${body}), listed after it; ${loopControl(node.loop_group)}`);
  }
  if ('approval' in node) {
    const decisions = node.approval.decisions ? ` (decisions: ${node.approval.decisions.map((d) => d.id).join(', ')})` : '';
    return make('approval', filled(node.approval.message, scope), `an approval gate${decisions}: a dry run takes it as approved; a real run pauses here until it is answered`);
  }
  if ('cancel' in node) {
    const reason = filled(node.cancel, scope);
    return make('cancel', reason, 'ends the run as cancelled with this reason; the nodes after it are not reached', reason.text ?? node.cancel, true);
  }
  if ('wait' in node) {
    const { wait } = node;
    const until = wait.until !== undefined ? filled(wait.until, scope) : undefined;
    const when = wait.duration_ms !== undefined ? `${wait.duration_ms} ms` : `until ${until?.text ?? wait.until}`;
    return make('wait', { ...filled(wait.message, scope), ...(until?.fail ? { fail: until.fail } : {}) }, `waits ${when}; a dry run does not wait`, '', true);
  }
  if ('github' in node) {
    const { comment, label, pull_request: pull } = node.github;
    if (comment !== undefined) return make('github', filled(comment, scope), 'comments on the run’s GitHub issue or pull request (its cap counted); a dry run writes nothing');
    if (label !== undefined) return make('github', filled([label].flat().join(', '), scope), 'adds labels to the run’s GitHub issue or pull request; a dry run writes nothing');
    return make('github', filled(pull!.title, scope), `opens a pull request from ${pull!.head} into ${pull!.base ?? 'the default branch'}; a dry run writes nothing`);
  }
  const child = filled(node.input, scope);
  const detail = node.fan_out
    ? `fans out over ${fanOutDetail(node.fan_out.items, scope)}: each item runs workflow '${node.workflow}' (max ${node.fan_out.max_parallel ?? DEFAULT_FAN_OUT_MAX_PARALLEL} at once${node.fan_out.mode ? `, ${node.fan_out.mode}` : ''}); a dry run starts none`
    : `starts a child run of workflow '${node.workflow}'${withValues(node.with, scope)}; a dry run starts none and does not walk it`;
  return make('workflow', child, detail);
}
