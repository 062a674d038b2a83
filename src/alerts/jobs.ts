import type { AppContext } from '../context.js';

export interface BackgroundJob {
  stop(): Promise<void>;
}

/**
 * Periodic alert work: escalation of unacknowledged incidents and release of incidents whose
 * silence ended or whose cause resolved (issue 2 implements it).
 */
export async function startAlertJobs(_ctx: AppContext): Promise<BackgroundJob> {
  return { async stop() {} };
}
