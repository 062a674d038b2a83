/**
 * Items that run, as the Fabric job scheduler shows them: the job type of each item kind, the
 * failure reasons a failed instance carries, and the extra runnable items of the `runnableItems`
 * size (the generator gives them their own random sequence, so the other sizes' seeds stay unchanged).
 */
import type { SimItem, SimJobInstance, SimWorkspace } from './types.js';

export type RunnableType = 'DataPipeline' | 'Notebook' | 'SparkJobDefinition' | 'Dataflow' | 'CopyJob';
export const RUNNABLE_TYPES: readonly RunnableType[] = ['DataPipeline', 'Notebook', 'SparkJobDefinition', 'Dataflow', 'CopyJob'];

/** The job type the scheduler runs for each item kind (the `{jobType}` of the schedules path). */
export const JOB_TYPE: Record<RunnableType, string> = {
  DataPipeline: 'Pipeline',
  Notebook: 'RunNotebook',
  SparkJobDefinition: 'sparkjob',
  Dataflow: 'Execute',
  CopyJob: 'CopyJob',
};

export function jobTypeOf(type: SimItem['type']): string {
  return (JOB_TYPE as Record<string, string>)[type] ?? 'DefaultJob';
}

/** Failure reasons as failed instances report them. */
const FAILURE_MESSAGES: Record<string, string> = {
  JobInstanceStatusFailed: 'Job instance failed without detail error.',
  RequestExecutionFailed: "Activity 'Copy data1' failed: Failure happened on 'Source' side. ErrorCode=SqlFailedToConnect.",
  SparkJobFailed: 'Spark job failed: Livy session has failed. Session state: Dead.',
  DataflowRefreshFailed: 'Mashup Exception Data Source Error: the credentials provided for the SQL source are invalid.',
  CopyJobFailed: 'Copy job failed: the sink table does not exist.',
  CapacityNotActive: 'The capacity of this workspace is not active.',
};

export function failureReason(errorCode: string | undefined): { errorCode: string; message: string } {
  const code = errorCode ?? 'JobInstanceStatusFailed';
  return { errorCode: code, message: FAILURE_MESSAGES[code] ?? 'The job failed.' };
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Adds `perWorkspace` runnable items to every workspace: about one in five has an enabled
 * schedule and ran an hour ago; the others ran days ago (and have no schedule, or a disabled one).
 */
export function addRunnableItems(workspaces: SimWorkspace[], perWorkspace: number, random: { rand: () => number; guid: () => string }, now: number): void {
  if (perWorkspace <= 0) return;
  const { rand, guid } = random;
  let n = 0;
  for (const w of workspaces) {
    for (let k = 0; k < perWorkspace; k++, n++) {
      const type = RUNNABLE_TYPES[n % RUNNABLE_TYPES.length]!;
      const jobType = JOB_TYPE[type];
      const id = guid();
      const scheduled = rand() < 0.2;
      const lastRun = scheduled ? now - HOUR_MS : now - (3 + Math.floor(rand() * 20)) * DAY_MS;
      const jobs: SimJobInstance[] = Array.from({ length: 3 }, (_, j) => {
        const start = lastRun - j * DAY_MS;
        const failed = rand() < 0.05;
        return {
          id: guid(),
          jobType,
          invokeType: scheduled ? ('Scheduled' as const) : ('Manual' as const),
          status: failed ? ('Failed' as const) : ('Completed' as const),
          startTimeUtc: new Date(start).toISOString(),
          endTimeUtc: new Date(start + 120_000).toISOString(),
          ...(failed ? { failureReason: failureReason('RequestExecutionFailed') } : {}),
        };
      });
      w.items.push({
        id,
        type,
        displayName: `${type} ${n + 1}`,
        workspaceId: w.id,
        refreshes: [],
        jobs,
        schedules: scheduled ? [{ id: guid(), jobType, enabled: true }] : rand() < 0.5 ? [{ id: guid(), jobType, enabled: false }] : [],
      });
    }
  }
}
