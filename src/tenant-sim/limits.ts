/**
 * The platform's throttling as the simulator plays it: documented hourly caps per operation
 * (a rolling hour), the ARM read bucket (250, refilled at 25 per second), and 429 storms a test
 * asks for. Each refusal says how long to wait.
 */
import type { ApiFamily } from './types.js';

export interface HourlyCap {
  name: string;
  family: ApiFamily;
  /** Matches the path after the origin (no query). */
  pattern: RegExp;
  perHour: number;
  /** The cap's rolling period when it is not an hour (`perHour` is then per this period). */
  periodMs?: number;
}

/** The vendors' documented hourly caps the simulator enforces. */
export const DOCUMENTED_CAPS: readonly HourlyCap[] = [
  { name: 'powerbi-admin-groups', family: 'powerbi-admin', pattern: /^\/v1\.0\/myorg\/admin\/groups$/i, perHour: 50 },
  { name: 'powerbi-admin-capacities', family: 'powerbi-admin', pattern: /^\/v1\.0\/myorg\/admin\/capacities$/i, perHour: 200 },
  { name: 'powerbi-admin-refreshables', family: 'powerbi-admin', pattern: /^\/v1\.0\/myorg\/admin\/capacities\/(?:[^/]+\/)?refreshables$/i, perHour: 200 },
  { name: 'powerbi-admin-activityevents', family: 'powerbi-admin', pattern: /^\/v1\.0\/myorg\/admin\/activityevents$/i, perHour: 200 },
  { name: 'powerbi-admin-scanner-getinfo', family: 'powerbi-admin', pattern: /^\/v1\.0\/myorg\/admin\/workspaces\/getInfo$/i, perHour: 500 },
  { name: 'fabric-admin-workspaces', family: 'fabric-admin', pattern: /^\/v1\/admin\/workspaces$/i, perHour: 200 },
  { name: 'fabric-admin-items', family: 'fabric-admin', pattern: /^\/v1\/admin\/items$/i, perHour: 200 },
  // executeQueries: 120 query requests a minute per user, whatever the model.
  { name: 'powerbi-execute-queries', family: 'powerbi', pattern: /\/datasets\/[^/]+\/executeQueries$/i, perHour: 120, periodMs: 60_000 },
];

export const ARM_BUCKET = { size: 250, refillPerSecond: 25 };

export interface Refusal {
  retryAfterSeconds: number;
  reason: string;
}

export class Limits {
  private readonly windows = new Map<string, number[]>();
  private readonly storms = new Map<ApiFamily, { remaining: number; retryAfterSeconds: number }>();
  private armTokens = ARM_BUCKET.size;
  private armUpdatedAt: number;

  constructor(private readonly now: () => number) {
    this.armUpdatedAt = now();
  }

  reset(): void {
    this.windows.clear();
    this.storms.clear();
    this.armTokens = ARM_BUCKET.size;
    this.armUpdatedAt = this.now();
  }

  /** The next `count` requests of the family answer 429 with this Retry-After. */
  storm(family: ApiFamily, count: number, retryAfterSeconds: number): void {
    if (count <= 0) this.storms.delete(family);
    else this.storms.set(family, { remaining: count, retryAfterSeconds });
  }

  /** Whether this request is refused; counts it against its caps when it is let through. */
  admit(family: ApiFamily, path: string): Refusal | null {
    const storm = this.storms.get(family);
    if (storm && storm.remaining > 0) {
      storm.remaining--;
      if (storm.remaining === 0) this.storms.delete(family);
      return { retryAfterSeconds: storm.retryAfterSeconds, reason: 'storm' };
    }
    const t = this.now();
    for (const cap of DOCUMENTED_CAPS) {
      if (cap.family !== family || !cap.pattern.test(path)) continue;
      const period = cap.periodMs ?? 3_600_000;
      const hits = (this.windows.get(cap.name) ?? []).filter((at) => at > t - period);
      if (hits.length >= cap.perHour) {
        this.windows.set(cap.name, hits);
        return { retryAfterSeconds: Math.max(1, Math.ceil((hits[0]! + period - t) / 1000)), reason: `cap:${cap.name}` };
      }
      hits.push(t);
      this.windows.set(cap.name, hits);
    }
    if (family === 'arm') {
      this.armTokens = Math.min(ARM_BUCKET.size, this.armTokens + ((t - this.armUpdatedAt) / 1000) * ARM_BUCKET.refillPerSecond);
      this.armUpdatedAt = t;
      if (this.armTokens < 1) return { retryAfterSeconds: 1, reason: 'arm-bucket' };
      this.armTokens -= 1;
    }
    return null;
  }
}
