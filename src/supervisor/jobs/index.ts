import type { JobKind } from '../../store/schemas/job.js';
import { approveRunJob } from './approve-run.js';
import { cancelRunJob } from './cancel-run.js';
import { rejectRunJob } from './reject-run.js';
import { chatTurnJob } from './chat-turn.js';
import type { JobHandler } from './job-handler.js';
import { startRunJob } from './start-run.js';
import { workflowResultJob } from './workflow-result.js';

export type { JobContext, JobHandler } from './job-handler.js';

/** One handler per job kind: a new operation (resume, approve, ...) is a new file here. */
export const jobHandlers: Record<JobKind, JobHandler> = {
  start_run: startRunJob,
  cancel_run: cancelRunJob,
  chat_turn: chatTurnJob,
  workflow_result: workflowResultJob,
  approve_run: approveRunJob,
  reject_run: rejectRunJob,
};
