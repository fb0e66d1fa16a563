import { GitHubRequestError, type GitHubClient } from './github-client.js';

/**
 * One write a run's `github:` node asks for (docs/github.md, "Writing back to GitHub"), made so
 * that asking again makes no second write: a comment's and a pull request's body start with a
 * hidden marker naming the run and the node, so a retry after a lost answer or a crash finds the
 * write GitHub made and edits or reuses it; adding a label GitHub has already is a no-op. Values
 * a workflow or an agent wrote go into the JSON body only.
 */

export type EngineWrite =
  | { kind: 'comment'; body: string }
  | { kind: 'label'; labels: string[] }
  | { kind: 'pull_request'; title: string; body: string; head: string; base: string | undefined; draft: boolean };

export interface WriteTarget {
  client: GitHubClient;
  repository: string;
  number: number;
}

export interface WriteDone {
  /** A comment's id, a pull request's number, the labels (comma-separated). */
  githubId: string;
  url: string | null;
}

/** How many pages of 100 a retry looks through for the write it may have made. */
const SEARCH_PAGES = 10;

/** The hidden first line of a comment or a pull request's body: which run's which write it is. */
export const writeMarkerOf = (runId: string, key: string): string => `<!-- cairn-write:${runId}:${key} -->`;

/**
 * Makes the write. `known` is what was recorded for it before (a retry of a write GitHub
 * answered); `retried`: it was reserved before, so GitHub may hold it though nothing was recorded.
 */
export async function makeEngineWrite(
  target: WriteTarget,
  write: EngineWrite,
  marker: string,
  previous: { known: string | null; retried: boolean },
): Promise<WriteDone> {
  const { client, repository, number } = target;
  if (write.kind === 'label') {
    const labels = await client.addLabels(repository, number, write.labels);
    return { githubId: labels.join(','), url: null };
  }
  if (write.kind === 'comment') {
    const body = `${marker}\n${write.body}`;
    const id = previous.known !== null ? Number(previous.known) : previous.retried ? (await client.findComment(repository, number, marker, SEARCH_PAGES))?.id : undefined;
    if (id !== undefined) {
      try {
        await client.updateComment(repository, id, body);
        return { githubId: String(id), url: null };
      } catch (err) {
        // Someone deleted it meanwhile: this node's write is made again, once.
        if (!(err instanceof GitHubRequestError && err.status === 404)) throw err;
      }
    }
    const made = await client.createComment(repository, number, body);
    return { githubId: String(made.id), url: made.url || null };
  }
  if (previous.known !== null) return { githubId: previous.known, url: null };
  const body = `${marker}\n${write.body}`;
  if (previous.retried) {
    const found = await client.findPull(repository, marker, SEARCH_PAGES);
    if (found) return { githubId: String(found.number), url: found.url || null };
  }
  const base = write.base ?? (await client.defaultBranch(repository));
  const made = await client.createPull(repository, { title: write.title, body, head: write.head, base, draft: write.draft });
  return { githubId: String(made.number), url: made.url || null };
}
