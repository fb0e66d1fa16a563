/** The parts of the codebase routes' answers the pages read (docs/http-api.md, "Codebases"). */

export interface EnvScan {
  status: 'clean' | 'keys_found' | 'error';
  /** The `.env*` files scanned, relative to the checkout. */
  files: string[];
  /** Names of the keys that look like secrets; never their values. */
  keys: string[];
  scanned_at: string;
}

export interface Codebase {
  id: string;
  name: string;
  repository_url: string | null;
  default_cwd: string;
  default_branch: string | null;
  kind: 'repo' | 'folder';
  managed: boolean;
  allow_env_keys: boolean;
  env_scan: EnvScan;
  created_at: string;
}

export interface Environment {
  id: string;
  codebase_id: string;
  workflow_id: string;
  provider: string;
  working_path: string;
  branch_name: string | null;
  status: string;
  locked_by_run: string | null;
  created_at: string;
  days_since_activity: number;
}

/** A codebase id (`owner/repo`) as the path of its routes: `/api/codebases/owner/repo`. */
export function codebasePath(id: string): string {
  return `/api/codebases/${id.split('/').map(encodeURIComponent).join('/')}`;
}
