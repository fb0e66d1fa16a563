/**
 * The GitHub writes a run's `github:` nodes made (docs/github.md, "Writing back to GitHub"),
 * counted durably against the workflow's caps. A write is reserved under its key (the node's
 * path) before the engine asks GitHub, and its GitHub id recorded after: a retry, a resume or a
 * take-over of the same node finds its reservation (and, once known, the id), so it edits or finds
 * the write it made instead of making a second one, and a reservation past the cap is refused.
 */

export type GitHubWriteKind = 'comment' | 'label' | 'pull_request';

export interface GitHubWriteRecord {
  key: string;
  kind: GitHubWriteKind;
  /** What GitHub answered for it (a comment's or pull request's id, the labels); null until recorded. */
  githubId: string | null;
  url: string | null;
  createdAt: string;
}

export type GitHubWriteReservation =
  /** `existing`: the key's reservation was already there (a retry); its write may have been made. */
  | { reserved: true; write: GitHubWriteRecord; existing: boolean }
  /** The cap of its kind was reached: `used` writes of that kind were reserved before. */
  | { reserved: false; why: 'cap'; used: number }
  | { reserved: false; why: 'run_not_found' };

export interface GitHubWriteStore {
  /** Reserves the write `key` of `kind` for the run, if fewer than `cap` of its kind are reserved; a key reserved already is answered as it is. */
  reserveGitHubWrite(input: { runId: string; key: string; kind: GitHubWriteKind; cap: number }): Promise<GitHubWriteReservation>;
  /** Records what GitHub answered for a reserved write. */
  recordGitHubWrite(input: { runId: string; key: string; githubId: string; url: string | null }): Promise<void>;
  /** The run's writes, oldest first. */
  listGitHubWrites(runId: string): Promise<GitHubWriteRecord[]>;
}
