/**
 * The parts of the workflow routes' answers the dashboard reads (docs/http-api.md,
 * `GET /api/workflows`, `GET /api/workflows/{name}`, `POST /api/workflows/validate`).
 */

export type WorkflowSource = 'bundled' | 'global' | 'project';

export interface WorkflowInput {
  required?: boolean;
  /** Text for an input without a type; a value of its type for a typed one. */
  default?: string | number | boolean | unknown[] | Record<string, unknown>;
  description?: string;
  /** The declared type (docs/workflows.md, "Typed inputs"); omitted: text. The form sends text, which the server converts. */
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  enum?: string[];
}

export interface WorkflowDefinition {
  name: string;
  description: string;
  nodes: { id: string; [key: string]: unknown }[];
  inputs?: Record<string, WorkflowInput>;
  [key: string]: unknown;
}

export interface WorkflowEntry {
  workflow: WorkflowDefinition;
  source: WorkflowSource;
  filename: string;
  parseWarnings?: string[];
}

export interface WorkflowLoadError {
  filename: string;
  source: WorkflowSource;
  error: string;
  errorType: 'read_error' | 'parse_error' | 'validation_error';
}

export interface WorkflowList {
  workflows: WorkflowEntry[];
  recommended: string[];
  errors?: WorkflowLoadError[];
  configWarnings?: string[];
}

export type ValidateAnswer = { valid: true } | { valid: false; errors: string[] };

/** How the page names each scope: the API says `global` for the home scope. */
export const scopeNames: Record<WorkflowSource, string> = { project: 'project', global: 'home', bundled: 'bundled' };
export const scopeOrder: readonly WorkflowSource[] = ['project', 'global', 'bundled'];

/** The project folder the workflow pages look from (`?cwd=`), kept on every link between them. */
export function withCwd(path: string, cwd: string | undefined): string {
  return cwd ? `${path}?cwd=${encodeURIComponent(cwd)}` : path;
}

export function workflowHref(name: string, cwd: string | undefined, suffix = ''): string {
  return withCwd(`/workflows/${encodeURIComponent(name)}${suffix}`, cwd);
}

/** `GET /api/workflows/{name}/file`: the file that declares the workflow, as its text. */
export interface WorkflowFile {
  name: string;
  source: WorkflowEntry['source'];
  filename: string;
  text: string;
}
