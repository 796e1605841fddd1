// Times the playground in headless Chromium (benchmarks/playground.py
// serves the site and calls this): two visits in one fresh profile (the
// first with an empty HTTP cache and no IndexedDB, the second with what
// the first left), each from page load to `ready`, then each example's
// Run to its result, twice. Prints one JSON report.
//
// usage: node playground.mjs CONFIG.json
//   CONFIG: {"playwright": DIR, "chromium": PATH, "url": BASE_URL, "profile": DIR, "examples": [NAME...]}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(path.join(config.playwright, "package.json"));
const { chromium } = require(config.playwright);

const context = await chromium.launchPersistentContext(config.profile, {
  executablePath: config.chromium,
  headless: true,
  viewport: { width: 1400, height: 1000 },
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
const page = context.pages()[0] || await context.newPage();
const report = { visits: [], console: [] };
page.on("console", (m) => report.console.push(m.text().slice(0, 300)));

const waitStatus = (want, ms) =>
  page.waitForFunction((w) => document.getElementById("status").textContent === w, want, { timeout: ms });

async function visit(label) {
  const t0 = Date.now();
  await page.goto(config.url + "index.html?example=" + config.examples[0]);
  await waitStatus("ready", 300_000);
  const ready = Date.now() - t0;
  const rounds = [];
  for (let round = 0; round < 2; round++) {
    const runs = {};
    for (const name of config.examples) {
      await page.selectOption("#examples", name);
      const t = Date.now();
      await page.click("#run");
      await waitStatus("done", 300_000);
      // the driver's time (click to the status read back) and the page's own (Run to the result shown)
      const page_ms = await page.evaluate(() => window.playground.timings.runs.at(-1).page);
      runs[name] = [Date.now() - t, page_ms];
    }
    rounds.push(runs);
  }
  const steps = await page.evaluate(() => window.playground.timings.steps);
  report.visits.push({ label, ready, steps, rounds });
}

await visit("cold");
// the worker saves its cache and its snapshot to IndexedDB once it is idle
await page.waitForFunction(() => window.playground.timings.idle &&
  Object.keys(window.playground.timings.steps).some((k) => k.startsWith("snapshot saved")), null, { timeout: 300_000 });
await visit("warm");
await context.close();
process.stdout.write(JSON.stringify(report) + "\n");
