import type { DefinitionNode } from './node-schema.js';

/**
 * The fields of a node whose text the engine substitutes references into. One list, used to
 * validate references, to rename them when an `include:` is inlined, and by the engine when it
 * substitutes — so a field cannot be checked in one place and forgotten in another.
 * `prose` fields are read by a model; the rest are code or data.
 */

export interface NodeText {
  /** Dotted location in the node, e.g. `approval.message`. */
  field: string;
  text: string;
  prose: boolean;
}

type TextMapper = (text: string, where: Omit<NodeText, 'text'>) => string;

/** A copy of `node` with `map` applied to each substituted text (loop_group bodies included). */
export function mapNodeTexts<N extends DefinitionNode>(node: N, map: TextMapper): N {
  const n: DefinitionNode = node;
  const out: Record<string, unknown> = { ...node };
  const apply = (text: string, field: string, prose: boolean): string => map(text, { field, prose });
  const applyOptional = (text: string | undefined, field: string): string | undefined =>
    text === undefined ? undefined : apply(text, field, false);

  if (n.when !== undefined) out.when = apply(n.when, 'when', false);
  if ('prompt' in n) out.prompt = apply(n.prompt, 'prompt', true);
  if ('bash' in n) out.bash = apply(n.bash, 'bash', false);
  if ('script' in n) out.script = apply(n.script, 'script', false);
  if ('cancel' in n) out.cancel = apply(n.cancel, 'cancel', false);
  if ('approval' in n) {
    const { on_reject: onReject } = n.approval;
    out.approval = {
      ...n.approval,
      message: apply(n.approval.message, 'approval.message', true),
      ...(onReject
        ? {
            on_reject: withoutUndefined({
              ...onReject,
              prompt: onReject.prompt === undefined ? undefined : apply(onReject.prompt, 'approval.on_reject.prompt', true),
              bash: applyOptional(onReject.bash, 'approval.on_reject.bash'),
            }),
          }
        : {}),
    };
  }
  if ('loop' in n) {
    out.loop = withoutUndefined({
      ...n.loop,
      prompt: n.loop.prompt === undefined ? undefined : apply(n.loop.prompt, 'loop.prompt', true),
      bash: applyOptional(n.loop.bash, 'loop.bash'),
      until_bash: applyOptional(n.loop.until_bash, 'loop.until_bash'),
    });
  }
  if ('loop_group' in n) {
    out.loop_group = withoutUndefined({
      ...n.loop_group,
      until_bash: applyOptional(n.loop_group.until_bash, 'loop_group.until_bash'),
      nodes: n.loop_group.nodes.map((body) => mapNodeTexts(body, map)),
    });
  }
  if ('workflow' in n) {
    if (n.input !== undefined) out.input = apply(n.input, 'input', false);
    if (n.fan_out) out.fan_out = { ...n.fan_out, items: apply(n.fan_out.items, 'fan_out.items', false) };
  }
  if ('wait' in n && n.wait.until !== undefined) out.wait = { ...n.wait, until: apply(n.wait.until, 'wait.until', false) };
  if ('github' in n) {
    const { comment, label, pull_request: pull } = n.github;
    out.github = {
      ...n.github,
      ...(comment !== undefined ? { comment: apply(comment, 'github.comment', false) } : {}),
      ...(label !== undefined ? { label: typeof label === 'string' ? apply(label, 'github.label', false) : label.map((l, i) => apply(l, `github.label.${i}`, false)) } : {}),
      ...(pull
        ? {
            pull_request: withoutUndefined({
              ...pull,
              title: apply(pull.title, 'github.pull_request.title', false),
              body: applyOptional(pull.body, 'github.pull_request.body'),
              head: apply(pull.head, 'github.pull_request.head', false),
              base: applyOptional(pull.base, 'github.pull_request.base'),
            }),
          }
        : {}),
    };
  }
  const bindings = 'workflow' in n || 'command' in n || 'script' in n ? n.with : undefined;
  if (bindings) {
    out.with = Object.fromEntries(
      Object.entries(bindings).map(([key, value]) => [
        key,
        typeof value === 'string' ? apply(value, `with.${key}`, false) : value,
      ]),
    );
  }
  return out as N;
}

/** The substituted texts of a node itself (not of its loop_group body). */
export function listNodeTexts(node: DefinitionNode): NodeText[] {
  const texts: NodeText[] = [];
  const shallow = 'loop_group' in node ? { ...node, loop_group: { ...node.loop_group, nodes: [] } } : node;
  mapNodeTexts(shallow, (text, where) => {
    texts.push({ ...where, text });
    return text;
  });
  return texts;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
