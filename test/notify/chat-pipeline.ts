/**
 * The Teams and Slack tests' set-up: a test app on a manual clock, the two HTTPS fakes, and the
 * real dispatcher (passes driven by the test), with the checks every such test makes after each
 * case — no contract violation at either fake, no webhook secret in the logs.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { SlackFake, TeamsFake } from '../fakes/chat.js';

export const T0 = '2026-06-15T12:00:00.000Z';

export interface ChatPipeline {
  t: TestApp;
  clock: ManualClock;
  worker: Dispatcher;
  teams: TeamsFake;
  slack: SlackFake;
}

/** Installs the hooks; the returned object's t, clock and worker are set once beforeAll ran. */
export function useChatPipeline(config: Partial<Config> = {}, secrets: readonly string[] = []): ChatPipeline {
  const h = { teams: new TeamsFake(), slack: new SlackFake() } as ChatPipeline;
  beforeAll(async () => {
    h.clock = new ManualClock(T0);
    h.t = await createTestApp({ clock: h.clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000, ...config } });
    await Promise.all([h.teams.start(), h.slack.start()]);
    h.worker = await startDispatcher(h.t.ctx, { idlePollMs: 3_600_000 });
  });
  afterEach(() => {
    expect(h.teams.violations).toEqual([]);
    expect(h.slack.violations).toEqual([]);
    for (const secret of [h.teams.sig, ...secrets]) expect(h.t.ctx.logs.text).not.toContain(secret);
  });
  afterAll(async () => {
    await h.worker.stop();
    await Promise.all([h.teams.stop(), h.slack.stop()]);
    await h.t.close();
  });
  return h;
}
