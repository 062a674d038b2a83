// @engine-neutral: no database is opened here
/**
 * The rotation of resources polled under a budget: hot ones every run, the others in turns from
 * a cursor that survives between runs, and the time a full rotation takes.
 */
import { describe, expect, it } from 'vitest';
import { pickForRun, type RotationPick, type RotationState } from '../../src/monitoring/engine/rotation.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';

const items = Array.from({ length: 10 }, (_, i) => ({ id: `m${String(i).padStart(2, '0')}`, hot: i % 5 === 0 }));
type Item = (typeof items)[number];
const opts = (state: RotationState | undefined, budget: number, at: string) => ({ key: (i: Item) => i.id, isHot: (i: Item) => i.hot, budget, state, now: new Date(at) });

describe('rotation', () => {
  it('polls the hot ones every run and every cold one once per rotation, in turns', () => {
    const seen = new Map<string, number>();
    let state: RotationState | undefined;
    const times = ['2026-01-01T00:00:00Z', '2026-01-01T00:05:00Z', '2026-01-01T00:10:00Z', '2026-01-01T00:15:00Z', '2026-01-01T00:20:00Z', '2026-01-01T00:25:00Z'];
    const completed: boolean[] = [];
    for (const at of times) {
      const pick = pickForRun(items, opts(state, 5, at));
      expect(pick.poll.slice(0, 2).map((i) => i.id)).toEqual(['m00', 'm05']);
      expect(pick.poll).toHaveLength(5);
      for (const i of pick.poll) seen.set(i.id, (seen.get(i.id) ?? 0) + 1);
      completed.push(pick.completedRotation);
      state = pick.next;
    }
    // 8 cold resources, 3 a run: rotations complete in runs 3 and 6 (index 2 and 5)... with wrap-around.
    expect(completed).toEqual([false, false, true, false, false, true]);
    expect(seen.get('m00')).toBe(6);
    for (const id of ['m01', 'm02', 'm03', 'm04', 'm06', 'm07', 'm08', 'm09']) expect(seen.get(id)).toBeGreaterThanOrEqual(2);
    // The second rotation ran from the run that completed the first (00:10) to 00:25.
    expect(state).toMatchObject({ lastFullRotationSeconds: 900, hot: 2, cold: 8 });
  });

  it('more hot resources than the budget take turns too, and a tenth of the budget still reaches the others', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `m${String(i).padStart(2, '0')}`, hot: i < 30 }));
    const counts = new Map<string, number>();
    let state: RotationState | undefined;
    for (let run = 0; run < 3; run++) {
      const pick = pickForRun(many, { ...opts(state, 10, `2026-01-01T00:0${run}:00Z`) });
      // 9 hot in turns + 1 of the others.
      expect(pick.poll.filter((i) => i.hot)).toHaveLength(9);
      expect(pick.poll.filter((i) => !i.hot)).toHaveLength(1);
      expect(pick.skippedHot).toBe(21);
      for (const i of pick.poll) counts.set(i.id, (counts.get(i.id) ?? 0) + 1);
      state = pick.next;
    }
    // Three runs of 9 reach 27 different hot resources: none polled twice while others wait.
    expect([...counts].filter(([id, n]) => id < 'm30' && n > 0)).toHaveLength(27);
    expect(Math.max(...counts.values())).toBe(1);
  });

  it('a budget of one with more hot resources than that: they take turns, one a run', () => {
    const first = pickForRun(items, opts(undefined, 1, '2026-01-01T00:00:00Z'));
    expect(first.poll.map((i) => i.id)).toEqual(['m00']);
    expect(first.skippedHot).toBe(1);
    const second = pickForRun(items, opts(first.next, 1, '2026-01-01T00:05:00Z'));
    expect(second.poll.map((i) => i.id)).toEqual(['m05']);
  });

  it('everything fits: every run is a full rotation, one interval long', () => {
    const first = pickForRun(items, opts(undefined, 50, '2026-01-01T00:00:00Z'));
    expect(first.poll).toHaveLength(10);
    const second = pickForRun(items, opts(first.next, 50, '2026-01-01T00:05:00Z'));
    expect(second.next.lastFullRotationSeconds).toBe(300);
  });

  it('fair turns: as many hot resources as the budget, or a budget of one, still give the others a turn within ten runs', () => {
    const seen = new Set<string>();
    let state: RotationState | undefined;
    // Two hot resources and a budget of two: one goes to the others every run, the hot ones alternate.
    for (let run = 0; run < 8; run++) {
      const pick = pickForRun(items, opts(state, 2, `2026-01-01T00:0${run}:00Z`));
      expect(pick.poll.filter((i) => !i.hot)).toHaveLength(1);
      for (const i of pick.poll) seen.add(i.id);
      state = pick.next;
    }
    expect(seen.size).toBe(10);
    // A budget of one: the others' tenth of it adds up to one turn in ten runs.
    state = undefined;
    let coldTurns = 0;
    for (let run = 0; run < 10; run++) {
      const pick: RotationPick<Item> = pickForRun(items, opts(state, 1, `2026-01-01T01:0${run}:00Z`));
      coldTurns += pick.poll.filter((i) => !i.hot).length;
      state = pick.next;
    }
    expect(coldTurns).toBe(1);
  });

  it('hot resources take turns by key, so a hot set that changes between runs skips none of them', () => {
    const hotOnes = Array.from({ length: 6 }, (_, i) => ({ id: `h${i}`, hot: true }));
    const polled = new Set<string>();
    let state: RotationState | undefined;
    for (let run = 0; run < 3; run++) {
      // A new hot resource appears before the others' turn every run.
      const set = [{ id: `h0${run}`, hot: true }, ...hotOnes];
      const pick: RotationPick<Item> = pickForRun(set, opts(state, 3, `2026-01-01T00:0${run}:00Z`));
      for (const i of pick.poll) polled.add(i.id);
      state = pick.next;
    }
    for (const h of hotOnes) expect(polled.has(h.id), h.id).toBe(true);
  });

  it('the first pass is done only when every resource was polled once: the cold rotation completed and the hot ones went round', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ id: `m${String(i).padStart(2, '0')}`, hot: i < 4 }));
    let state: RotationState | undefined;
    const done: boolean[] = [];
    for (let run = 0; run < 10; run++) {
      const pick = pickForRun(many, { ...opts(state, 3, `2026-01-01T00:${String(run).padStart(2, '0')}:00Z`) });
      done.push(pick.next.firstPassDone === true);
      state = pick.next;
    }
    // 3 a run, one of them for the 8 cold: their rotation completes in the eighth run (the hot ones went round in the second).
    expect(done).toEqual([false, false, false, false, false, false, false, true, true, true]);
    // A state from before the first pass was kept: done.
    expect(pickForRun(many, opts({ cursor: 0, passStartedAt: null, lastFullRotationSeconds: null, hot: 0, cold: 0 }, 1, '2026-01-01T00:00:00Z')).next.firstPassDone).toBe(true);
  });

  it('a run budget is a share of the hourly cap spread over the runs of an hour, at least one', () => {
    expect(runBudget(7_200, 0.5, 300)).toBe(300);
    expect(runBudget(200, 0.1, 5)).toBe(1);
  });
});
