import { CairnError } from '../../shared/errors.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { readWorkflowFile } from '../../workflow/catalog/discover-workflows.js';
import { isWorkflowFileName, listFiles } from '../../workflow/catalog/list-files.js';
import type { CatalogLocations } from '../../workflow/catalog/locations.js';
import type { WritableSource } from '../../workflow/catalog/workflow-files.js';

/**
 * `DELETE /api/workflows/{name}` on top of the catalog. When the only copy of a name the
 * chosen scope could delete is the bundled one, the refusal is the text upstream clients match
 * on, `Cannot delete bundled default workflow: <name>`. That includes a project delete sent
 * without `cwd`: nothing but the bundled file could be meant, so saying so beats asking for a
 * `cwd`. Everything else (not found, `.archon/` files, a missing `cwd`) is the catalog's answer.
 */

/** The names the bundled workflow files declare; they do not change while the server runs. */
export function bundledWorkflowNames(locations: CatalogLocations): ReadonlySet<string> {
  const names = listFiles(locations.bundledWorkflowsDir, isWorkflowFileName).map((file) => readWorkflowFile(file.path).name);
  return new Set(names.filter((name): name is string => name !== undefined));
}

export interface DeleteQuery {
  cwd: string | undefined;
  source: WritableSource;
}

/** Deletes the user workflow `name` from `source`; throws a CairnError on refusal. */
export async function deleteWorkflow(
  catalog: WorkflowCatalog,
  bundledNames: ReadonlySet<string>,
  name: string,
  query: DeleteQuery,
): Promise<{ filename: string; source: WritableSource }> {
  if (bundledNames.has(name) && !(await isDeclaredIn(catalog, name, query))) {
    throw new CairnError('WORKFLOW_READ_ONLY', `Cannot delete bundled default workflow: ${name}`);
  }
  return catalog.deleteAsync(name, query);
}

/** Whether a file in the source's folders declares `name`. */
async function isDeclaredIn(catalog: WorkflowCatalog, name: string, query: DeleteQuery): Promise<boolean> {
  if (query.source === 'project' && query.cwd === undefined) return false;
  return catalog.declaresAsync(name, query);
}
