/**
 * `npm run bench -- delivery|delivery-soak|api|list-ab|signals|collect|pglite-buffers|models-view|chat|email` (no argument: delivery and api; the 5-minute
 * delivery soak runs only when asked for). Each benchmark writes its own section of
 * bench/RESULTS.md. The local HTTPS receivers use the test CA, which Node must trust from the
 * start of the process, so unless NODE_EXTRA_CA_CERTS names it, this re-runs itself with it set.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM script without types
import { makeTestCerts } from '../scripts/make-test-certs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const which = process.argv.slice(2).filter((a) => a !== '--' && !a.startsWith('--'));
// `--name=value` flags are the benchmarks' own (bench/collect.ts reads them from process.argv).
const flags = process.argv.slice(2).filter((a) => a !== '--' && a.startsWith('--'));
const wanted = which.length ? which : ['delivery', 'api'];
for (const w of wanted) {
  if (!['delivery', 'delivery-soak', 'api', 'list-ab', 'signals', 'collect', 'pglite-buffers', 'models-view', 'chat', 'email'].includes(w)) {
    process.stderr.write(`unknown benchmark "${w}" (use delivery, delivery-soak, api, list-ab, signals, collect, pglite-buffers, models-view, chat or email)\n`);
    process.exit(2);
  }
}

const { caCert } = makeTestCerts() as { caCert: string };
if (process.env.NODE_EXTRA_CA_CERTS !== caCert) {
  // The collect bench reads memory after a forced GC.
  const gc = wanted.includes('collect') || wanted.includes('pglite-buffers') ? ['--expose-gc'] : [];
  const r = spawnSync(process.execPath, [...process.execArgv, ...gc, fileURLToPath(import.meta.url), ...wanted, ...flags], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caCert },
  });
  process.exit(r.status ?? 1);
}

for (const w of wanted) {
  if (w === 'email') {
    const { runEmailBench } = await import('./email.js');
    await runEmailBench();
  } else if (w === 'chat') {
    const { runChatBench } = await import('./chat.js');
    await runChatBench();
  } else if (w === 'models-view') {
    const { runModelsViewBench } = await import('./models-view.js');
    await runModelsViewBench();
  } else if (w === 'pglite-buffers') {
    const { runPgliteBuffersBench } = await import('./pglite-buffers.js');
    await runPgliteBuffersBench();
  } else if (w === 'collect') {
    const { runCollectBench } = await import('./collect.js');
    await runCollectBench();
  } else if (w === 'signals') {
    const { runSignalsBench } = await import('./signals.js');
    await runSignalsBench();
  } else if (w === 'list-ab') {
    const { runListAbBench } = await import('./list-ab.js');
    await runListAbBench();
  } else if (w === 'delivery') {
    const { runDeliveryBench } = await import('./delivery.js');
    await runDeliveryBench();
  } else if (w === 'delivery-soak') {
    const { runDeliverySoak } = await import('./delivery-soak.js');
    await runDeliverySoak();
  } else {
    const file = path.join(here, 'api.ts');
    if (!existsSync(file)) {
      process.stdout.write('api benchmark: bench/api.ts not present, skipped\n');
      continue;
    }
    const specifier = './api.js';
    const mod = (await import(specifier)) as { run?: () => Promise<unknown>; default?: () => Promise<unknown> };
    await (mod.run ?? mod.default)!();
  }
}
process.exit(0);
