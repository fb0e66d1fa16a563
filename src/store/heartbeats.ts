import type { SupervisorHeartbeat } from './schemas/heartbeat.js';

/** Each supervisor's periodic report of liveness and concurrency (`/api/health` reads them). */
export interface HeartbeatStore {
  /** Upserts the supervisor's row; rows silent for a day are forgotten. */
  writeHeartbeat(heartbeat: SupervisorHeartbeat): Promise<void>;
  /** Freshest first. */
  listHeartbeats(): Promise<SupervisorHeartbeat[]>;
}
