/**
 * The order in which vitest starts the test files: the longest first, whatever their project. The
 * suite's time is bounded below by its longest file, so a 4-minute file started last stretches the
 * whole run by 4 minutes; vitest's own order runs the projects one after the other (the PGlite
 * project's slow files came last) and, without a cache of earlier durations, the largest files first.
 * Here a file's expected duration is its duration in this machine's last run when vitest cached it,
 * else the figure below (measured on a 2-core machine, bench/RESULTS.md "The test suite"), else a
 * guess from its size.
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds, per file, of the slowest files of a full run (both engines alike). */
const KNOWN_SECONDS: Record<string, number> = {
  'test/cli/readme-tour.test.ts': 250,
  'test/cli/data-dir.test.ts': 110,
  'test/monitoring/refreshes.test.ts': 100,
  'test/access/oidc.test.ts': 70,
  'test/console/console.test.ts': 60,
  'test/delivery/reliability.test.ts': 60,
  'test/foundation/serve.test.ts': 50,
  'test/monitoring/processes.test.ts': 45,
  'test/package/package.test.ts': 45,
  'test/console/overview.test.ts': 45,
  'test/foundation/demo.test.ts': 45,
};

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const expected = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (cached?.duration) return cached.duration / 1000;
      return KNOWN_SECONDS[path] ?? statSync(spec.moduleId).size / 2_000;
    };
    const seconds = new Map(files.map((f) => [f, expected(f)]));
    return [...files].sort((a, b) => seconds.get(b)! - seconds.get(a)!);
  }
}
