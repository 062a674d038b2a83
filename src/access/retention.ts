import type { Database } from '../db/index.js';
import { purgeAudit } from './audit.js';
import { purgeExpiredSessions } from './sessions.js';

/** Audit entries older than 400 days, expired sessions and abandoned OIDC sign-ins go. */
export async function purgeAccessRecords(db: Database, now: Date): Promise<{ audit: number; sessions: number }> {
  return { audit: await purgeAudit(db, now), sessions: await purgeExpiredSessions(db, now) };
}
