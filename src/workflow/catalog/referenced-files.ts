import type { WorkflowNode } from '../schema/node-schema.js';
import type { WorkflowDefinition } from '../schema/workflow-schema.js';

export interface ReferencedScript {
  /** As the node writes it: a script name (`echo-args`), a file name, or inline code. */
  source: string;
  runtime: 'bun' | 'uv';
}

/** The files a definition's nodes may read when they run: command names and `script:` bodies. */
export interface ReferencedFiles {
  commands: string[];
  scripts: ReferencedScript[];
}

/**
 * Every command file and script a definition's nodes name, each once: `command:` nodes, loops
 * whose body is a `command:`, `script:` nodes (bun or uv: the body may name a script file), and
 * the nodes of every `loop_group`. Child workflows (`workflow:`) are runs of their own, which
 * capture their own files when they start.
 */
export function referencedFiles(definition: Pick<WorkflowDefinition, 'nodes'>): ReferencedFiles {
  const commands = new Set<string>();
  const scripts = new Map<string, ReferencedScript>();
  const visit = (nodes: readonly WorkflowNode[]): void => {
    for (const node of nodes) {
      if ('command' in node) commands.add(node.command);
      if ('loop' in node && node.loop.command !== undefined) commands.add(node.loop.command);
      if ('script' in node) scripts.set(`${node.runtime}:${node.script}`, { source: node.script, runtime: node.runtime });
      if ('loop_group' in node) visit(node.loop_group.nodes);
    }
  };
  visit(definition.nodes);
  return { commands: [...commands].sort(), scripts: [...scripts.values()] };
}

/** The name a script is kept under in a run's copy: its runtime and its body, `bun:echo-args`. */
export function scriptKey(script: ReferencedScript): string {
  return `${script.runtime}:${script.source.trim()}`;
}
