import { describe } from 'vitest';
import { describeAvailabilityContract } from './contract/availability.js';
import { describeCodebaseContract, describeIsolationLockContract } from './contract/codebases.js';
import { describeConnectionContract } from './contract/connections.js';
import { describeConversationContract } from './contract/conversations.js';
import { describeCredentialContract } from './contract/credentials.js';
import { describeEventOrderContract } from './contract/event-order.js';
import { describeEventContract } from './contract/events.js';
import { describeHeartbeatContract } from './contract/heartbeats.js';
import { describeJobLeaseContract } from './contract/job-leases.js';
import { describeJobContract } from './contract/jobs.js';
import { describeRunContract } from './contract/runs.js';
import { describeRunPageContract } from './contract/run-pages.js';
import { describeRunRequestContract } from './contract/run-requests.js';
import { describeChildRunContract } from './contract/child-runs.js';
import { describeSleepingRunContract } from './contract/sleeping-runs.js';
import { describeRunTotalsContract } from './contract/run-totals.js';
import { describeUserPrefsContract } from './contract/user-prefs.js';
import { describeNodeSessionContract } from './contract/node-sessions.js';
import { describeWriteFenceContract } from './contract/write-fence.js';
import { describeScheduleContract } from './contract/schedules.js';
import { usePostgresBackend } from './postgres-backend.js';

const postgres = usePostgresBackend();

/** The PostgreSQL store passes the whole Store contract, unchanged, on a real cluster. */
describe('PostgreSQL store', () => {
  describeConnectionContract(postgres);
  describeRunContract(postgres);
  describeRunRequestContract(postgres);
  describeRunPageContract(postgres);
  describeJobContract(postgres);
  describeJobLeaseContract(postgres);
  describeSleepingRunContract(postgres);
  describeChildRunContract(postgres);
  describeRunTotalsContract(postgres);
  describeEventContract(postgres);
  describeEventOrderContract(postgres);
  describeHeartbeatContract(postgres);
  describeCodebaseContract(postgres);
  describeConversationContract(postgres);
  describeCredentialContract(postgres);
  describeIsolationLockContract(postgres);
  describeAvailabilityContract(postgres);
  describeUserPrefsContract(postgres);
  describeNodeSessionContract(postgres);
  describeWriteFenceContract(postgres);
  describeScheduleContract(postgres);
});
