import type { CatalogQuery, WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import type { WorkflowEntry } from '../../workflow/catalog/discover-workflows.js';
import { failedLoadDetails, failedLoadText } from '../../workflow/catalog/lookup-entry.js';
import { ProblemListError } from '../errors.js';

/**
 * A workflow by name, for the routes that take one (`GET /api/workflows/{name}`, `POST …/run`).
 * When the file that declares the name did not load, the refusal is 400 WORKFLOW_INVALID whose
 * `error` names the file and whose `errors` (and `detail`) list each of its problems.
 */
export async function lookupWorkflow(catalog: WorkflowCatalog, name: string, query: CatalogQuery): Promise<WorkflowEntry> {
  try {
    return await catalog.getAsync(name, query);
  } catch (err) {
    const details = failedLoadDetails(err);
    if (details) throw new ProblemListError('WORKFLOW_INVALID', failedLoadText(name, details), details.errors);
    throw err;
  }
}
