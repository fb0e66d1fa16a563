import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** One ```yaml block of a markdown file: where it is, its text and its parsed value. */
export interface DocYamlBlock {
  where: string;
  text: string;
  value: unknown;
}

/** Every ```yaml block of the `*.md` files of `dir`, parsed (a block that does not parse throws, naming it). */
export function docYamlBlocks(dir: string, label: string): DocYamlBlock[] {
  const blocks: DocYamlBlock[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
    const markdown = readFileSync(join(dir, file), 'utf8');
    for (const match of markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      const where = `${label}/${file}:${markdown.slice(0, match.index).split('\n').length}`;
      const text = match[1]!;
      let value: unknown;
      try {
        value = parse(text);
      } catch (err) {
        throw new Error(`${where}: the yaml block does not parse: ${(err as Error).message}`);
      }
      blocks.push({ where, text, value });
    }
  }
  return blocks;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether every key of `part` is in `whole` with a deeply equal value. */
export function isSubset(part: Record<string, unknown>, whole: unknown): boolean {
  return isMapping(whole) && Object.entries(part).every(([k, v]) => JSON.stringify(whole[k]) === JSON.stringify(v));
}

/** Every node of a raw workflow, loop_group bodies included. */
export function rawNodes(workflow: unknown): Record<string, unknown>[] {
  if (!isMapping(workflow) || !Array.isArray(workflow.nodes)) return [];
  return workflow.nodes.filter(isMapping).flatMap((n) => [n, ...(isMapping(n.loop_group) ? rawNodes(n.loop_group) : [])]);
}
