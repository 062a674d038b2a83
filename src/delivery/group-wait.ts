/**
 * `config.groupWaitSeconds` of the kinds that group openings (docs/notifications.md, "No floods"):
 * how long the first opening of a group waits for others to join it. One rule for every such
 * kind (teams, slack, email); 0 sends each opening on its own.
 */

export const DEFAULT_GROUP_WAIT_SECONDS = 30;
export const MAX_GROUP_WAIT_SECONDS = 3600;

/** The stored value, read defensively (it was checked when saved): the default when absent or out of range. */
export function groupWaitSeconds(config: Record<string, unknown>): number {
  const v = config.groupWaitSeconds;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_GROUP_WAIT_SECONDS ? v : DEFAULT_GROUP_WAIT_SECONDS;
}

/** The error naming the field when a destination being saved gives a bad value; null when it is absent or fine. */
export function checkGroupWait(config: Record<string, unknown>): string | null {
  const v = config.groupWaitSeconds;
  if (v === undefined) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_GROUP_WAIT_SECONDS) {
    return `config.groupWaitSeconds must be an integer from 0 to ${MAX_GROUP_WAIT_SECONDS} (seconds; default ${DEFAULT_GROUP_WAIT_SECONDS})`;
  }
  return null;
}
