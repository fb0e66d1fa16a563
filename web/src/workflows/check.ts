import { sendJson, withQuery } from '../api.js';
import type { ValidateAnswer } from './types.js';
import { parseYaml } from './yaml.js';

/**
 * What the editor knows of its text: the definition it reads as, and every problem, each on its
 * line where one can be told (1-based): a YAML error carries its line; a problem the validate
 * route (`POST /api/workflows/validate`) finds in a node (`Node 'build' ...`) is put on the line
 * that declares that node's id. Nothing is written anywhere.
 */

export interface Problem {
  message: string;
  line: number | undefined;
}

export type Check = { valid: true; definition: Record<string, unknown> } | { valid: false; problems: Problem[] };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The line (1-based) that declares node `id`, if the text has one. */
export function lineOfNode(text: string, id: string): number | undefined {
  const pattern = new RegExp(`^\\s*(?:-\\s+)?id:\\s*(['"]?)${escapeRegExp(id)}\\1\\s*(?:#.*)?$`);
  const index = text.split('\n').findIndex((line) => pattern.test(line));
  return index < 0 ? undefined : index + 1;
}

function lineOf(text: string, message: string): number | undefined {
  const node = /^Node '([^']+)'/.exec(message);
  return node ? lineOfNode(text, node[1]!) : undefined;
}

export async function checkWorkflowText(text: string, cwd: string | undefined): Promise<Check> {
  const parsed = await parseYaml(text);
  if (!parsed.ok) return { valid: false, problems: [{ message: parsed.message, line: parsed.line }] };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { valid: false, problems: [{ message: 'A workflow is a mapping: name, description and nodes', line: 1 }] };
  }
  const definition = value as Record<string, unknown>;
  const answer = await sendJson<ValidateAnswer>('POST', withQuery('/api/workflows/validate', { cwd }), { definition });
  if (answer.valid) return { valid: true, definition };
  return { valid: false, problems: answer.errors.map((message) => ({ message, line: lineOf(text, message) })) };
}
