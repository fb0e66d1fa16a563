import type { z } from 'zod';
import { CairnError, type ErrorCode } from '../shared/errors.js';

/**
 * The code for a record that fails its schema. An invalid record is a bug in the code that
 * built it (or a corrupt row), never a user error, so it is not a 4xx code.
 */
export const RECORD_INVALID_CODE: ErrorCode = 'EXECUTION_RECORD_INVALID';

export interface RecordIssue {
  path: string;
  message: string;
}

/** Flattens zod issues to `{ path: 'spend.tokens.reason', message }` for error details and logs. */
export function describeIssues(error: z.ZodError): RecordIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** A CairnError naming what was being built or read and the first offending field. */
export function recordInvalid(what: string, error: z.ZodError, context?: Record<string, unknown>): CairnError {
  const issues = describeIssues(error);
  const first = issues[0];
  const where = first ? ` at '${first.path || '(root)'}': ${first.message}` : '';
  return new CairnError(RECORD_INVALID_CODE, `Invalid ${what}${where}`, { reason: 'record_invalid', ...context, issues });
}
