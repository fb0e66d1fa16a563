/** Why a copy between backends did not start, or was rolled back. */
export type CopyRefusal =
  /** No database file where the source was looked for. */
  | 'source_missing'
  /** The file is not a Cairn database this build can read (not SQLite, or a newer schema). */
  | 'source_unreadable'
  /** A server (its supervisor, or another writer) is using the source. */
  | 'source_in_use'
  /** The target cannot be reached or refuses the connection. */
  | 'target_unreachable'
  /** A server is using the target. */
  | 'target_in_use'
  /** The target already holds an install's data (and no replace was asked). */
  | 'target_not_empty'
  /** The two schemas do not line up (a table or column one side lacks). */
  | 'schema_mismatch';

/** A copy refused before anything was written to the target, or rolled back: the message says what to do next. */
export class CopyRefusedError extends Error {
  constructor(
    readonly reason: CopyRefusal,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CopyRefusedError';
  }
}
