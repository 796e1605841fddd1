// Drives the playground in headless Chromium (Debian's, through the npm
// package playwright-core) as a learner would: fill #prompt, #world and
// #input, click #run, read #result and #error. Prints one JSON report;
// each step records its own failure, so one broken step shows the rest.
//
// usage: node browser.mjs CONFIG.json
//   CONFIG: {"playwright": DIR, "chromium": PATH, "url": BASE_URL, "examples": [NAME...],
//            "parse_error": PROMPT, "runaway": PROMPT, "deep": PROMPT, "repl": [LINE...],
//            "screenshot": PATH, "profile": DIR, "ready_ms": N, "run_ms": N}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(path.join(config.playwright, "package.json"));
const { chromium } = require(config.playwright);

const report = { steps: {}, console: [] };
const context = await chromium.launchPersistentContext(config.profile, {
  executablePath: config.chromium,
  headless: true,
  viewport: { width: 1400, height: 1000 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const page = context.pages()[0] || await context.newPage();
page.on("console", (m) => report.console.push(`${m.type()}: ${m.text()}`.slice(0, 500)));
page.on("pageerror", (e) => report.console.push(`pageerror: ${e}`.slice(0, 500)));
const requests = new Set();
page.on("request", (r) => requests.add(new URL(r.url()).origin));

async function step(name, body) {
  const started = Date.now();
  try {
    report.steps[name] = { ...(await body()), ms: Date.now() - started };
  } catch (e) {
    report.steps[name] = { failed: String(e).slice(0, 1500), ms: Date.now() - started };
  }
}

const status = () => page.textContent("#status");
const waitStatus = (want, ms) =>
  page.waitForFunction((w) => document.getElementById("status").textContent === w, want, { timeout: ms });

async function runAndRead() {
  await page.click("#run");
  await waitStatus("done", config.run_ms);
  return {
    result: await page.textContent("#result"),
    error: await page.textContent("#error"),
    view: (await page.getAttribute("#view", "srcdoc")) || "",
  };
}

await step("load", async () => {
  await page.goto(config.url + "index.html?example=" + config.examples[0]);
  const first = await status();
  await waitStatus("ready", config.ready_ms);
  const ids = await page.evaluate(() =>
    ["prompt", "world", "input", "run", "status", "result", "error", "view", "examples", "repl"]
      .filter((id) => document.getElementById(id) !== null));
  return {
    first, ids, chosen: await page.inputValue("#examples"), prompt: await page.inputValue("#prompt"),
    menu: await page.$$eval("#examples option", (os) => os.map((o) => o.value).filter(Boolean)),
  };
});

for (const name of config.examples) {
  await step("example:" + name, async () => {
    await page.selectOption("#examples", name);
    return runAndRead();
  });
  if (name === config.examples[0]) {
    await step("screenshot", async () => {
      await page.screenshot({ path: config.screenshot, fullPage: true });
      return {};
    });
  }
}

await step("parse_error", async () => {
  await page.fill("#prompt", config.parse_error);
  await page.fill("#world", "");
  await page.fill("#input", "");
  return runAndRead();
});

await step("runaway", async () => {
  await page.fill("#prompt", config.runaway);
  await page.fill("#world", "");
  await page.click("#run");
  const during = [];
  // while the worker runs the block, the page answers at once
  for (let i = 0; i < 3; i++) {
    const t0 = Date.now();
    const frame = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(true))));
    await page.fill("#input", "typed " + i);
    during.push({ status: await status(), frame, input: await page.inputValue("#input"), ms: Date.now() - t0 });
    await page.waitForTimeout(300);
  }
  await waitStatus("done", config.run_ms);
  return { during, error: await page.textContent("#error"), result: await page.textContent("#result") };
});

await step("deep", async () => {
  // a runaway recursion inside builtins' callbacks: Lua's error, and the worker lives on (the next step)
  await page.fill("#prompt", config.deep);
  await page.fill("#world", "");
  await page.fill("#input", "");
  return runAndRead();
});

await step("repl", async () => {
  await page.selectOption("#examples", config.examples[0]);
  await page.fill("#world", "");
  for (const line of config.repl) {
    await page.fill("#repl-input", line);
    await page.press("#repl-input", "Enter");
    await page.waitForFunction(() => document.getElementById("status").textContent === "done", null,
                               { timeout: config.run_ms });
  }
  return { output: await page.textContent("#repl-output") };
});

report.origins = [...requests];
await context.close();
process.stdout.write(JSON.stringify(report) + "\n");
