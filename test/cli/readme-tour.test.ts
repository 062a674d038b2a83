// @engine-neutral: the README's commands run as a newcomer runs them, on the embedded database they start
/**
 * The README's five-minute tour, run as written: the code blocks marked `<!-- tour: shell 1 -->`
 * and `<!-- tour: shell 2 -->` are extracted from README.md and run with bash. Only the fixed
 * addresses are moved so parallel tests never collide: port 8080 and 9443 become free ports and
 * `data/` a temporary data directory. The tour starts Vigia as the README does, on its embedded
 * database in the data directory (the same server on PostgreSQL is test/foundation/serve.test.ts's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, root } from './processes.js';
import { freePort } from '../helpers/ports.js';

function tourBlock(readme: string, shell: string): string {
  const m = new RegExp(`<!-- tour: ${shell} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!m) throw new Error(`README.md has no tour block for ${shell}`);
  return m[1]!;
}


interface Shell {
  child: ChildProcess;
  output(): string;
  waitFor(re: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

const shells: ChildProcess[] = [];

/** bash in its own process group, so everything it started (npm, node, a background job) stops together. */
function shell(script: string, env: Record<string, string>): Shell {
  const child = spawn('bash', ['-e', '-c', script], { cwd: root, env: baseEnv(env), detached: true });
  shells.push(child);
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor(re) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            listeners.delete(check);
            resolve(m);
          }
        };
        listeners.add(check);
        check();
        child.on('close', () => (re.exec(out) ? undefined : reject(new Error(`shell ended before ${re}:\n${out}`))));
      });
    },
  };
}

describe('README five-minute tour', () => {
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigia-tour-'));
    // Missed deliveries (the receiver still starting) are retried within seconds, not minutes.
    env = { VIGIA_DATA_DIR: path.join(dir, 'data'), VIGIA_RETRY_SCHEDULE: '1s,1s,2s,5s' };
  });
  afterAll(async () => {
    for (const child of shells) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('every command of the tour runs: the receiver gets the delivery and the public API lists the alert', async () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const apiPort = String(await freePort());
    const listenPort = String(await freePort());
    const adapt = (block: string) =>
      block.replaceAll('8080', apiPort).replaceAll('9443', listenPort).replaceAll('data/', `${env.VIGIA_DATA_DIR}/`);

    const one = shell(adapt(tourBlock(readme, 'shell 1')), { ...env, PORT: apiPort });
    await one.waitFor(/"msg":"vigia listening"/);

    const two = shell(adapt(tourBlock(readme, 'shell 2')), env);
    const code = await two.exited;
    expect(code, two.output()).toBe(0);
    // The public API call at the end lists the open alert.
    const listed = /\{"value":\[.*"totalCount":\d+.*\}/.exec(two.output());
    expect(listed, two.output()).not.toBeNull();
    const page = JSON.parse(listed![0]) as { value: { sourceName: string; status: string }[] };
    expect(page.value).toEqual([expect.objectContaining({ sourceName: 'Gateway 01', status: 'open' })]);
    // The receiver (still running in the background) verified and printed the delivery.
    await two.waitFor(/alert\.opened delivery=\S+ alert=\S+ \[error\/open\] Gateway offline/);
    expect(two.output()).not.toMatch(/rejected \(/);
  }, 240_000);

  it('the demo block watches the simulated tenant: the incident opens, is delivered, listed and recovers', async () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const block = tourBlock(readme, 'demo');
    expect(block.trim()).toBe('npm run demo');
    // Its own data directory: the tour above holds env's (the demo needs no server on it).
    const demoEnv: Record<string, string> = { ...env, VIGIA_DATA_DIR: path.join(dir, 'demo-data') };
    const run = shell(block, demoEnv);
    const code = await run.exited;
    const out = run.output();
    expect(code, out).toBe(0);
    expect(out).toContain('no Microsoft account needed');
    expect(out).toMatch(/ 7\. incident opened by the gateway collector: \[error\] .+ \(alr_\S+\)/);
    const alertId = / 7\. .*\((alr_\S+)\)/.exec(out)![1]!;
    expect(out).toMatch(new RegExp(` 8\\. the receiver verified the signed delivery: alert\\.opened delivery=dlv_\\S+ alert=${alertId} \\[error/open\\]`));
    expect(out).toMatch(/ 9\. the public API lists it: .* → GatewayOffline .+ \(open\)/);
    expect(out).toMatch(/10\. a refresh of ".+" .* DM_GWPipeline_Client_GatewayUnreachable: incident alr_\S+ correlated to the gateway incident — recorded, not paged/);
    expect(out).toMatch(/11\. .* the receiver gets alert\.recovered/);
    // What changed before it broke: the credentials rotation in the activity log is named by the refresh incident.
    expect(out).toMatch(/12\. in the simulator, "someone" rotated the credentials of a data source on ".+" 12 min ago; the activity collector read it/);
    expect(out).toMatch(/13\. a refresh of ".+" fails with DM_GWPipeline_Gateway_DataSourceAccessError: incident alr_\S+ names what changed before it broke — "The refresh failed 1[23] min after the data source credentials were changed"/);
    expect(out).not.toContain('someone@contoso.example');
    // Capacity load: Vigia sets up the Eventhouse source, a capacity is throttled, the incident names the heaviest item, it recovers.
    expect(out).toMatch(/14\. capacity load: Vigia created Eventhouse, KQLDatabase, Table, Eventstream in workspace ".+"/);
    const heavy = /15\. in the simulator, capacity ".+" is pushed past 100 % .*"(.+)" using most of the CU/.exec(out)![1]!;
    expect(out).toContain(`it names the heaviest item, "${heavy}"`);
    expect(out).toMatch(/16\. incident opened by the utilization collector: \[error\] .+ \(alr_\S+\)/);
    expect(out).toMatch(/17\. ".+" back under 100 % for 2 windows: the incident recovered and the receiver got alert\.recovered/);
    expect(out).toContain("contracts: no violation");
    // The e-mail destination: the local SMTP sink saved the gateway incident's thread as .eml files.
    expect(out).toMatch(/E-mail: the e-mail destination "demo e-mail" sent \d+ message\(s\) to a local SMTP sink/);
    const eml = /Open one in any mail client: (\S+\.eml)/.exec(out)![1]!;
    const mail = readFileSync(eml, 'utf8');
    expect(mail).toMatch(/^Auto-Submitted: auto-generated/m);
    expect(mail).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    const thread = readdirSync(path.dirname(eml)).map((f) => readFileSync(path.join(path.dirname(eml), f), 'utf8'));
    expect(thread.some((m) => /^In-Reply-To: <dlv_/m.test(m))).toBe(true);
    // The Teams destination: the Teams-shaped receiver took Adaptive Cards 1.5 in the message envelope and saved them.
    expect(out).toMatch(/Teams: the destination "demo Teams" posted [1-9]\d* Adaptive Card\(s\) to a Teams-shaped receiver/);
    const cardFile = /to see it as Teams shows it: (\S+\.json)/.exec(out)![1]!;
    expect(JSON.parse(readFileSync(cardFile, 'utf8'))).toMatchObject({ type: 'AdaptiveCard', version: '1.5' });
    const cards = readdirSync(path.dirname(cardFile)).map((f) => readFileSync(path.join(path.dirname(cardFile), f), 'utf8'));
    // The gateway's incident reached Teams too (its opening, alone or in its tenant's group).
    expect(cards.some((c) => c.includes(`/alerts/${alertId}`)), cards.join('\n')).toBe(true);
    // Which printed key works where: the seeded one on the user's server; the live story's is gone with its database.
    expect(out).toMatch(/API key \(all scopes, shown once; for the server on this data \(npm start\)\): vgk_/);
    expect(out).toContain('The API key printed above, under "Vigia demo ready", is the one that works on your server.');
    expect(out.slice(out.indexOf('This live story ran on its own Vigia'))).not.toMatch(/vgk_/);
    expect(out).not.toMatch(/gave up after/);
  }, 540_000);
});
