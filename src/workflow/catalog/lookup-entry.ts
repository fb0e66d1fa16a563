import { CairnError } from '../../shared/errors.js';
import type { Discovery, WorkflowEntry } from './discover-workflows.js';

/**
 * Finding a workflow by name in a discovery. A name whose file did not load is reported as that
 * file, with its problems, never as "not found": the file that declares the name (even when its
 * YAML does not parse, a top-level `name:` line is read), or else a file of that name that did not
 * load and whose `name:` could not be read at all.
 */

/** `details` of the WORKFLOW_INVALID a lookup throws: the file and each of its problems. */
export interface FailedLoadDetails {
  filename: string;
  source: WorkflowEntry['source'];
  errors: string[];
}

/** The first words of the lookup's WORKFLOW_INVALID message (the API's `error` stops there). */
export function failedLoadText(name: string, details: FailedLoadDetails): string {
  return `Workflow file is invalid: '${name}' is declared in ${details.filename} (${details.source}), which did not load`;
}

/** The loaded workflow that owns `name`; a CairnError when there is none or its file is invalid. */
export function entryOf(discovery: Discovery, name: string): WorkflowEntry {
  const owner = discovery.owners.get(name) ?? discovery.unnamed.get(name);
  if (!owner) throw new CairnError('WORKFLOW_NOT_FOUND', `Workflow not found: ${name}`);
  if (owner.entry) return owner.entry;
  const problems = owner.problems.length > 0 ? owner.problems : [owner.error?.error ?? 'unknown error'];
  const details: FailedLoadDetails = { filename: owner.file.relative, source: owner.file.scope.source, errors: problems };
  throw new CairnError('WORKFLOW_INVALID', `${failedLoadText(name, details)}: ${problems.join('; ')}`, details);
}

/** The details of a lookup's WORKFLOW_INVALID, when `err` is one. */
export function failedLoadDetails(err: unknown): FailedLoadDetails | undefined {
  if (!(err instanceof CairnError) || err.code !== 'WORKFLOW_INVALID') return undefined;
  const d = err.details as Partial<FailedLoadDetails> | undefined;
  return d && typeof d.filename === 'string' && Array.isArray(d.errors) ? (d as FailedLoadDetails) : undefined;
}
