/**
 * Dashboard load benchmark: how long the sign-in page takes until it is usable (e-mail and
 * password fields and the submit button rendered) on a simulated 4G link (9 Mbit/s both ways,
 * 170 ms round trip), with an empty cache, in Debian's chromium; and what it transfers.
 *
 *   npm run bench:web                 (builds web/dist when stale)
 *   BENCH_RUNS=9 npm run bench:web
 */
import { spawnSync } from 'node:child_process';
import { startHarness } from './harness.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const LINK = { latency: 170, throughput: (9 * 1024 * 1024) / 8 };

const build = spawnSync('node', ['scripts/build-web.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const harness = await startHarness();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
try {
  const usable: number[] = [];
  const transferred: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await harness.browser.newContext({ baseURL: harness.baseUrl });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: LINK.latency,
      downloadThroughput: LINK.throughput,
      uploadThroughput: LINK.throughput,
    });
    let bytes = 0;
    cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
      bytes += event.encodedDataLength;
    });
    await page.goto('/login', { waitUntil: 'commit' });
    await page.waitForFunction(() => {
      const email = document.querySelector<HTMLInputElement>(
        'input[type="email"], input[autocomplete="email"]',
      );
      const password = document.querySelector<HTMLInputElement>('input[type="password"]');
      const submit = document.querySelector<HTMLButtonElement>('button[type="submit"]');
      return Boolean(email && password && submit && !submit.disabled);
    });
    // Milliseconds since the navigation started, measured by the page itself.
    usable.push(await page.evaluate(() => performance.now()));
    await page.waitForLoadState('networkidle');
    transferred.push(bytes);
    await context.close();
  }
  console.log(`Sign-in page on simulated 4G (9 Mbit/s, 170 ms RTT), empty cache, ${RUNS} runs:`);
  console.log(
    `  usable after: median ${median(usable).toFixed(0)} ms, min ${Math.min(...usable).toFixed(0)} ms, max ${Math.max(...usable).toFixed(0)} ms`,
  );
  console.log(
    `  transferred: median ${(median(transferred) / 1024).toFixed(1)} KB (compressed, on the wire)`,
  );
} finally {
  await harness.close();
}
