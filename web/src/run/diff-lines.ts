/**
 * A unified diff (`git diff`) split into its files and their lines, each line typed for colouring:
 * the `diff --git` header lines, hunk headers, added, removed and context lines.
 */

export type DiffLineKind = 'meta' | 'hunk' | 'add' | 'del' | 'context';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export interface DiffFileText {
  /** The file's path as its `+++ b/` line (or, for a deletion, `--- a/`) names it, else its header's. */
  path: string;
  lines: DiffLine[];
}

function kindOf(line: string, inHunk: boolean): DiffLineKind {
  if (!inHunk) return 'meta';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'context';
}

export function splitDiff(text: string): DiffFileText[] {
  const files: DiffFileText[] = [];
  let file: DiffFileText | undefined;
  let inHunk = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const header = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      file = { path: header?.[2] ?? line.slice('diff --git '.length), lines: [] };
      files.push(file);
      inHunk = false;
    }
    if (!file) continue;
    if (line.startsWith('@@')) inHunk = true;
    if (!inHunk && line.startsWith('+++ b/')) file.path = line.slice(6);
    if (!inHunk && line.startsWith('--- a/') && file.path === '') file.path = line.slice(6);
    if (line === '' && file.lines.length > 0 && inHunk) continue;
    file.lines.push({ kind: kindOf(line, inHunk), text: line });
  }
  return files;
}
