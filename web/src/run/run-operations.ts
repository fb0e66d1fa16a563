import { sendJson } from '../api.js';
import type { RunAction } from './run-actions.js';

/**
 * Carries out an operation on a run through its public route, and returns the server's message.
 * `text` is the approve comment or the reject reason (left out when empty); `reload` makes a
 * resume take the workflow's files as they are now rather than the run's own copy.
 */
export async function runOperation(runId: string, action: RunAction, text = '', opts: { reload?: boolean } = {}): Promise<string> {
  const base = `/api/workflows/runs/${encodeURIComponent(runId)}`;
  const said = text.trim();
  let answer: { message?: string };
  switch (action) {
    case 'approve':
      answer = await sendJson('POST', `${base}/approve`, said ? { comment: said } : {});
      break;
    case 'reject':
      answer = await sendJson('POST', `${base}/reject`, said ? { reason: said } : {});
      break;
    case 'delete':
      answer = await sendJson('DELETE', base);
      break;
    case 'resume':
      answer = await sendJson('POST', `${base}/resume`, opts.reload ? { reload: true } : {});
      break;
    default:
      answer = await sendJson('POST', `${base}/${action}`, {});
  }
  return answer.message ?? `${action} done`;
}
