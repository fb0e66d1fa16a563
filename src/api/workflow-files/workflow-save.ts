import { ProblemListError } from '../errors.js';
import { parseYamlData } from '../../workflow/loading/yaml-data.js';
import type { SavedWorkflow, WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { assertSafeWorkflowName, sourceFolders, type WritableSource } from '../../workflow/catalog/workflow-files.js';

/**
 * `PUT /api/workflows/{name}` on top of the catalog. The checks run in the order a user fixes
 * them: the name, where it goes (a project save needs an existing `cwd`), then the definition.
 * Nothing is written unless the definition is valid; the catalog writes atomically.
 *
 * The path names the workflow. A definition without `name` (or with a blank one) takes the
 * path's name; a definition naming another workflow is refused, because saving it would file
 * workflow `b` under `a.yaml` and make `GET /api/workflows/a` miss it.
 */

export const definitionInvalidText = 'Workflow definition is invalid';

export interface SaveQuery {
  cwd: string | undefined;
  source: WritableSource;
}

/** Validates and saves `definition` as workflow `name`; throws a CairnError on refusal. */
export async function saveWorkflow(
  catalog: WorkflowCatalog,
  name: string,
  definition: Record<string, unknown>,
  query: SaveQuery,
): Promise<SavedWorkflow> {
  assertSafeWorkflowName(name);
  sourceFolders(catalog.locations, query.source, query.cwd);
  const named = withName(definition, name);
  const problems: string[] = [];
  if (typeof named.name === 'string' && named.name.trim() !== name) {
    problems.push(
      `definition.name '${named.name.trim()}' does not match the name in the path '${name}'; leave name out or make the two the same`,
    );
  }
  return checkAndSave(catalog, name, named, query, problems);
}

/**
 * `PUT /api/workflows/{name}/file`: the workflow as the YAML text of its file, saved as it is
 * (comments and layout kept) once the definition it holds is valid. The text must declare the
 * path's name itself: nothing is added to it.
 */
export async function saveWorkflowText(catalog: WorkflowCatalog, name: string, text: string, query: SaveQuery): Promise<SavedWorkflow> {
  assertSafeWorkflowName(name);
  sourceFolders(catalog.locations, query.source, query.cwd);
  let data: unknown;
  try {
    data = parseYamlData(text);
  } catch (err) {
    throw new ProblemListError('WORKFLOW_DEFINITION_INVALID', definitionInvalidText, [`YAML parse error: ${(err as Error).message}`]);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ProblemListError('WORKFLOW_DEFINITION_INVALID', definitionInvalidText, [
      'The text does not hold a workflow: write it as YAML keys (name, description, nodes)',
    ]);
  }
  const definition = data as Record<string, unknown>;
  const problems: string[] = [];
  const declared = typeof definition.name === 'string' ? definition.name.trim() : '';
  if (declared === '') problems.push(`The text declares no name: add 'name: ${name}' to it`);
  else if (declared !== name) {
    problems.push(`The text declares name '${declared}', which does not match the name in the path '${name}'; make the two the same`);
  }
  // Checked as named, so that a missing name is reported once, as above.
  return checkAndSave(catalog, name, withName(definition, name), query, problems, text);
}

async function checkAndSave(
  catalog: WorkflowCatalog,
  name: string,
  definition: Record<string, unknown>,
  query: SaveQuery,
  problems: string[],
  text?: string,
): Promise<SavedWorkflow> {
  const result = await catalog.validateAsync(definition, { cwd: query.cwd });
  if (!result.valid) problems.push(...result.errors);
  if (problems.length > 0) throw new ProblemListError('WORKFLOW_DEFINITION_INVALID', definitionInvalidText, problems);
  return catalog.saveAsync(name, definition, query, text);
}

/** The definition with `name` filled from the path when it is missing, null or blank (name first, for the file's reader). */
function withName(definition: Record<string, unknown>, name: string): Record<string, unknown> {
  const declared = definition.name;
  const isMissing = declared === undefined || declared === null || (typeof declared === 'string' && declared.trim() === '');
  if (!isMissing) return definition;
  const { name: _blank, ...rest } = definition;
  return { name, ...rest };
}
