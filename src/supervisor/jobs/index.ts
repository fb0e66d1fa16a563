import type { JobKind } from '../../store/schemas/job.js';
import { abandonRunJob } from './abandon-run.js';
import { approveRunJob } from './approve-run.js';
import { cancelRunJob } from './cancel-run.js';
import { childRunSettledJob } from './child-run-settled.js';
import { rejectRunJob } from './reject-run.js';
import { chatTurnJob } from './chat-turn.js';
import { deleteRunJob } from './delete-run.js';
import type { JobHandler } from './job-handler.js';
import { resumeRunJob } from './resume-run.js';
import { startRunJob } from './start-run.js';
import { wakeRunJob } from './wake-run.js';
import { workflowResultJob } from './workflow-result.js';

export type { JobContext, JobHandler } from './job-handler.js';

/** One handler per job kind: a new operation (approve, reject, ...) is a new file here. */
export const jobHandlers: { [K in JobKind]: JobHandler<K> } = {
  start_run: startRunJob,
  cancel_run: cancelRunJob,
  chat_turn: chatTurnJob,
  workflow_result: workflowResultJob,
  resume_run: resumeRunJob,
  abandon_run: abandonRunJob,
  delete_run: deleteRunJob,
  approve_run: approveRunJob,
  reject_run: rejectRunJob,
  wake_run: wakeRunJob,
  child_run_settled: childRunSettledJob,
};
