import { z } from 'zod';
import { inputText, type InputValue } from './input-types.js';
import { onOverlapSchema, type RunConcurrency } from '../../shared/run-concurrency.js';

/**
 * A workflow's `concurrency:` (docs/workflows.md, "Concurrency"): how many of its runs with the
 * same key may hold a place at once, and what a start does when all places are taken.
 *
 *   concurrency: { key: "pr-$INPUTS.pr", limit: 1, on_overlap: queue }
 *
 * The key may read `$INPUTS.<name>` (a declared input; a webhook's payload reaches it through the
 * hook's input mapping) and `$CODEBASE` (the id of the codebase the run works on); it is computed
 * once, when the run is admitted, and only ever compared as a string.
 */
export const concurrencySchema = z.strictObject({
  key: z.string().max(500).optional(),
  limit: z.number().int().positive().max(1000).default(1),
  on_overlap: onOverlapSchema.default('queue'),
});
export type Concurrency = z.infer<typeof concurrencySchema>;

const reference = /\$(?:INPUTS\.([A-Za-z_][A-Za-z0-9_-]*)|(CODEBASE)(?![A-Za-z0-9_]))/g;

/** What is wrong with a key as written: a `$` that is not one of its variables, an undeclared input. */
export function concurrencyKeyProblems(concurrency: Concurrency | undefined, declared: Readonly<Record<string, unknown>> | undefined): string[] {
  if (concurrency?.key === undefined) return [];
  const names = Object.keys(declared ?? {});
  const problems: string[] = [];
  for (const match of concurrency.key.matchAll(reference)) {
    const input = match[1];
    if (input !== undefined && !names.includes(input)) {
      problems.push(`'concurrency.key' reads $INPUTS.${input}, which is not an input of this workflow; declared inputs: ${names.join(', ') || 'none'}`);
    }
  }
  if (concurrency.key.replace(reference, '').includes('$')) {
    problems.push(`'concurrency.key' may read only $INPUTS.<name> and $CODEBASE; write a literal '$' nowhere else in it`);
  }
  return problems;
}

/**
 * The run's `metadata.concurrency`: the key with its variables replaced by the run's values (as
 * they are: never quoted, never read by a shell or SQL); a key that comes out empty, or none
 * written, is the workflow's name.
 */
export function runConcurrencyOf(
  workflowName: string,
  concurrency: Concurrency,
  facts: { inputs: Readonly<Record<string, InputValue>>; codebaseId: string | null },
): RunConcurrency {
  const written = concurrency.key ?? '';
  const key = written.replace(reference, (_all, input: string | undefined) => (input !== undefined ? inputText(facts.inputs[input]) : (facts.codebaseId ?? '')));
  return { key: key.trim() === '' ? workflowName : key, limit: concurrency.limit, on_overlap: concurrency.on_overlap };
}
