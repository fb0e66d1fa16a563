import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import type { Codebase } from '../codebases/types.js';
import type { WorkflowDefinition, WorkflowList } from '../workflows/types.js';

/**
 * What a form that starts runs later (a schedule, a webhook) offers to choose from: the workflows
 * (`GET /api/workflows`, by name; undefined while loading, empty when the read failed) and the
 * codebases (`GET /api/codebases`, empty when none or the read failed). `error`: why the
 * workflows could not be read.
 */
export function useRunChoices(): { workflows: WorkflowDefinition[] | undefined; codebases: Codebase[]; error: string | undefined } {
  const [workflows, setWorkflows] = useState<WorkflowDefinition[] | undefined>(undefined);
  const [codebases, setCodebases] = useState<Codebase[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    getJson<WorkflowList>('/api/workflows')
      .then((answer) => setWorkflows(answer.workflows.map((w) => w.workflow).sort((a, b) => a.name.localeCompare(b.name))))
      .catch((err: Error) => {
        setWorkflows([]);
        setError(err.message);
      });
    getJson<{ codebases: Codebase[] }>('/api/codebases')
      .then((answer) => setCodebases(answer.codebases))
      .catch(() => setCodebases([]));
  }, []);
  return { workflows, codebases, error };
}
