/**
 * `$DOCS_DIR`: a folder of the project, relative to its root (`docs/` by default). The value
 * comes from a run request's `config.docs.path` or a project's `docs.path`, and is spliced as
 * text into prompts and into bun/uv scripts ("$DOCS_DIR/index.md"), so it is held to an
 * alphabet that is plain text there: letters, digits, spaces and `. _ / + - @`.
 */

const allowed = /^[A-Za-z0-9._/+@ -]+$/;
const MAX_DOCS_PATH_LENGTH = 200;

/** The folder `$DOCS_DIR` names when neither the run nor the project says. */
export const DEFAULT_DOCS_DIR = 'docs/';

/** What is wrong with `path` as a docs folder, or undefined when nothing is. */
export function docsPathProblem(path: string): string | undefined {
  if (path.trim().length === 0) return 'it is empty';
  if (path.length > MAX_DOCS_PATH_LENGTH) return `it is longer than ${MAX_DOCS_PATH_LENGTH} characters`;
  if (!allowed.test(path)) return 'it contains a character other than letters, digits, spaces and . _ / + - @';
  if (path.startsWith('/')) return 'it is absolute; give the folder relative to the project root (as in docs/ or site/content)';
  if (path.startsWith('-')) return 'it starts with "-"';
  if (path.split('/').some((part) => part.trim() === '..')) return 'it has a ".." part (it must stay inside the project)';
  return undefined;
}
