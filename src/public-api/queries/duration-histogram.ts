import { type DurationStats, secs } from './incident-summary.js';

/**
 * Merged duration histograms of the rollup: one bin per exact duration (microseconds), so the
 * median, the mean and the within-target counts read from them are exact.
 */

export interface Bin {
  micros: bigint;
  n: number;
}
export const toBin = (r: { micros_text: string; n: number }): Bin => ({ micros: BigInt(r.micros_text), n: Number(r.n) });

export function countAtMost(bins: Bin[], targetSeconds: number): number {
  const limit = BigInt(targetSeconds) * 1_000_000n;
  let n = 0;
  for (const b of bins) if (b.micros <= limit) n += b.n;
  return n;
}

/**
 * Median and mean of a histogram sorted by duration. The median interpolates like PostgreSQL's
 * percentile_cont(0.5): the value at rank (n−1)/2, halfway to the next rank when n is even. The
 * mean sums in bigint (a year of microsecond durations exceeds 2^53) and divides once.
 */
export function histogramStats(bins: Bin[]): DurationStats {
  let samples = 0;
  let total = 0n;
  for (const b of bins) {
    samples += b.n;
    total += b.micros * BigInt(b.n);
  }
  if (samples === 0) return { medianSeconds: null, meanSeconds: null, samples: 0 };
  const lowRank = Math.floor((samples - 1) / 2);
  const highRank = Math.ceil((samples - 1) / 2);
  let low: number | null = null;
  let high: number | null = null;
  let seen = 0;
  for (const b of bins) {
    seen += b.n;
    if (low === null && seen > lowRank) low = Number(b.micros) / 1e6;
    if (seen > highRank) {
      high = Number(b.micros) / 1e6;
      break;
    }
  }
  const median = low! + (high! - low!) * 0.5;
  const mean = Number(total) / 1e6 / samples;
  return { medianSeconds: secs(median), meanSeconds: secs(mean), samples };
}
