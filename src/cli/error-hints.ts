import { runErrorText } from '../runs/run-texts.js';

/**
 * The one place that turns an error with a Cairn error code (from the server's `{ error, code }`
 * answer, or from the workflow catalog the CLI reads itself) into what a CLI user reads: the
 * error as worded, plus the `cairn` command to run next; and the command's flags in place of the
 * HTTP API's fields and routes the server's texts name.
 */

/** An error as the server (or the catalog) gave it. */
export interface CodedError {
  code: string;
  message: string;
  /** Every problem, when the error stands for several (a workflow file that does not load). */
  problems?: readonly string[] | undefined;
}

/** What the failed request was about, for the hints that need it. */
export interface ErrorSubject {
  /** The workflow it named: a file that does not load points at `cairn workflow validate <it>`. */
  workflow?: string;
  /** It started a run (`cairn workflow run`): the request's fields are named as the command's flags. */
  isRunStart?: boolean;
  /** It resumed this run (`cairn run resume`): a refusal says how to resume it once it may. */
  resumedRun?: string;
}

/** The commands to run next, as the hints and the CLI's own errors say them. */
export const nextSteps = {
  runList: 'Check it with `cairn run list`',
  workflowList: 'Run `cairn workflow list` to see the workflows you can use.',
  validate: (name: string) => `Run \`cairn workflow validate ${name}\` to see every problem with its line.`,
  codebaseList: 'List the registered ones with `cairn codebase list`.',
  resumeAgain: (runId: string) =>
    `The run is left failed, as it was: \`cairn run resume ${runId}\` once a place is free, or \`cairn run cancel <run id>\` on a run holding one frees it now.`,
} as const;

/** The run request's fields (`POST /api/workflows/{name}/run`) and the `cairn workflow run` flags they come from. */
const runStartFlags: readonly [RegExp, string][] = [
  [/\bcodebaseId\b/g, '--codebase'],
  // `cwd` the field, not a path segment that happens to be named so.
  [/(?<![\w/.-])cwd\b(?!\/)/g, '--cwd'],
  [/^branch\b/, '--branch'],
  [/\bbaseBranch\b/g, '--base'],
];

/** Names the flags in place of the API's fields, leaving quoted values ('…') as they are. */
function asRunFlags(message: string): string {
  return message
    .split(/('[^']*')/)
    .map((part, i) => (i % 2 === 1 ? part : runStartFlags.reduce((text, [field, flag]) => text.replace(field, flag), part)))
    .join('');
}

/** The server's pointer at its codebase list route, at the end of a codebase error. */
const codebaseRoute = /[.;]?\s*List the registered ones with GET \/api\/codebases\.?$/;

function pointAtCodebaseList(message: string): string {
  return `${message.replace(codebaseRoute, '')}. ${nextSteps.codebaseList}`;
}

function withProblems(err: CodedError): string {
  return err.problems?.length ? `${err.message}:\n${err.problems.map((p) => `  ${p}`).join('\n')}` : err.message;
}

const byCode: Record<string, (err: CodedError, subject: ErrorSubject) => string> = {
  // Only the run itself: a run's other missing things (an attempt's log) have other texts.
  RUN_NOT_FOUND: (err) => (err.message.startsWith(runErrorText.notFound) ? `${err.message}. ${nextSteps.runList}.` : err.message),
  WORKFLOW_NOT_FOUND: (err) => `${err.message}. ${nextSteps.workflowList}`,
  WORKFLOW_INVALID: (err, subject) => withProblems(err) + (subject.workflow ? `\n${nextSteps.validate(subject.workflow)}` : ''),
  CODEBASE_NOT_FOUND: (err) => pointAtCodebaseList(err.message),
  // A run request naming an unknown codebase, or a cwd and codebase that disagree.
  VALIDATION_FAILED: (err, subject) => {
    if (!subject.isRunStart) return withProblems(err);
    const message = asRunFlags(withProblems(err));
    return codebaseRoute.test(message) ? pointAtCodebaseList(message) : message;
  },
  CWD_INVALID: (err, subject) => (subject.isRunStart ? asRunFlags(err.message) : err.message),
  BRANCH_NAME_INVALID: (err, subject) => (subject.isRunStart ? asRunFlags(err.message) : err.message),
  BASE_BRANCH_NOT_FOUND: (err, subject) => (subject.isRunStart ? asRunFlags(err.message) : err.message),
  // A resume its workflow's `on_overlap: refuse` turned away: the run is left failed, as it was.
  CONCURRENCY_LIMIT_REACHED: (err, subject) =>
    subject.resumedRun === undefined ? err.message : `${err.message}.\n${nextSteps.resumeAgain(subject.resumedRun)}`,
};

/** The error's text for a CLI user: as worded, with the next step its code calls for. */
export function explainError(err: CodedError, subject: ErrorSubject = {}): string {
  return (byCode[err.code] ?? withProblems)(err, subject);
}
