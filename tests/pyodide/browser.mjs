// Drives the playground in headless Chromium (Debian's, through the npm
// package playwright-core) as a learner would: fill the prompt, world and
// input (the editors through window.playground.setText), click #run or
// press Ctrl-Enter, read #result and #error, share, take the tour. Prints
// one JSON report; each step records its own failure, so one broken step
// shows the rest.
//
// usage: node browser.mjs CONFIG.json
//   CONFIG: {"playwright": DIR, "chromium": PATH, "url": BASE_URL, "examples": [NAME...],
//            "parse_error": PROMPT, "runaway": PROMPT, "deep": PROMPT, "repl": [LINE...],
//            "screenshot": PATH, "profile": DIR, "ready_ms": N, "run_ms": N, "tour": N}
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
const setText = (id, text) => page.evaluate(([i, t]) => window.playground.setText(i, t), [id, text]);
const getText = (id) => page.evaluate((i) => window.playground.getText(i), id);
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
  const started = Date.now();
  await page.goto(config.url + "index.html?example=" + config.examples[0]);
  const first = await status();
  await waitStatus("ready", config.ready_ms);
  const ready_ms = Date.now() - started;
  const ids = await page.evaluate(() =>
    ["prompt", "world", "input", "run", "status", "result", "error", "view", "examples", "repl", "share", "tour",
     "tour-prev", "tour-next"].filter((id) => document.getElementById(id) !== null));
  return {
    first, ids, ready_ms, chosen: await page.inputValue("#examples"), prompt: await getText("prompt"),
    menu: await page.$$eval("#examples option", (os) => os.map((o) => o.value).filter(Boolean)),
    steps: await page.evaluate(() => window.playground.timings.steps),
  };
});

await step("editor", async () => {
  // line numbers, and the Lua block's words highlighted apart from the Markdown around them
  const numbers = await page.$$eval("#prompt .cm-lineNumbers .cm-gutterElement",
                                    (es) => es.filter((e) => e.style.visibility !== "hidden").map((e) => e.textContent));
  const lua = await page.$$eval("#prompt .cm-line", (lines) => {
    const i = lines.findIndex((l) => l.textContent === "```lua");
    const line = lines.find((l, j) => j > i && /\breturn\b/.test(l.textContent));
    return { text: getComputedStyle(line).color,
             spans: [...line.querySelectorAll("span")].map((s) => [s.textContent, getComputedStyle(s).color]) };
  });
  return { numbers, lua };
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
  await setText("prompt", config.parse_error);
  await setText("world", "");
  await page.fill("#input", "");
  const got = await runAndRead();
  // the marked line: its number in the gutter beside it
  got.marked = await page.$$eval("#prompt .cm-line", (lines) =>
    lines.map((l, i) => (l.classList.contains("cm-error-line") ? i + 1 : 0)).filter(Boolean));
  return got;
});

await step("ctrl_enter", async () => {
  await page.selectOption("#examples", config.examples[0]);
  await page.click("#prompt .cm-content");
  await page.keyboard.press("Control+Enter");
  await waitStatus("done", config.run_ms);
  const marked = await page.$$eval("#prompt .cm-error-line", (ls) => ls.length);
  return { result: await page.textContent("#result"), error: await page.textContent("#error"), marked };
});

await step("share", async () => {
  const texts = { prompt: config.parse_error + "\n<!-- shared: \u00e9t\u00e9 -->\n", world: "replies: []\n", input: "shared input" };
  for (const [id, text] of Object.entries(texts)) await setText(id, text);
  await page.click("#share");
  await page.waitForFunction(() => document.getElementById("share-message").textContent, null, { timeout: 30_000 });
  const link = page.url();
  const said = await page.textContent("#share-message");
  if (!link.includes("#s=")) throw new Error(`no link: ${said}`);
  const other = await context.newPage();
  await other.goto(link);
  await other.waitForFunction(() => window.playground && window.playground.getText("input") === "shared input", null,
                              { timeout: config.ready_ms });
  const restored = await other.evaluate(() =>
    Object.fromEntries(["prompt", "world", "input"].map((id) => [id, window.playground.getText(id)])));
  await other.close();
  // beyond 64 KB of URL: a clear message, and the address is left as it was
  let noise = ""; // random, so that no compression brings it under the bound
  for (let i = 0; i < 150_000; i++) noise += String.fromCharCode(33 + Math.floor(Math.random() * 90));
  await setText("prompt", noise);
  await page.click("#share");
  await page.waitForFunction(() => /Too long/.test(document.getElementById("share-message").textContent), null,
                             { timeout: 30_000 });
  return { same: JSON.stringify(restored) === JSON.stringify(texts), link_length: link.length, said,
           too_long: await page.textContent("#share-message"), kept: page.url() === link };
});

await step("tour", async () => {
  // in a page of its own: the tour needs no Pyodide, and this one keeps its worker
  const tour = await context.newPage();
  await tour.goto(config.url + "index.html?tour=" + config.tour);
  await tour.waitForFunction(() => window.playground && document.getElementById("tour-where").textContent, null,
                             { timeout: 30_000 });
  const seen = async () => ({
    where: await tour.textContent("#tour-where"), title: await tour.textContent("#tour-text h1"),
    example: await tour.inputValue("#examples"),
    prompt: await tour.evaluate(() => window.playground.getText("prompt")), url: tour.url(),
  });
  const opened = await seen();
  await tour.click("#tour-next");
  const after = await seen();
  await tour.click("#tour-prev");
  const back = await seen();
  // the chapter's link to the command reference opens it in the panel, a link there another page;
  // Previous comes back to the chapter and the header's link opens the language reference
  await tour.evaluate(() => window.playground.setText("prompt", "-- edited"));
  await tour.click("#tour-text a[href='?ref=commands']");
  await tour.waitForFunction(() => /^reference: /.test(document.getElementById("tour-where").textContent), null,
                             { timeout: 30_000 });
  const reference = await seen();
  await tour.click("#tour-text a[href^='?ref=']:not([href='?ref=commands'])");
  await tour.waitForFunction(() => !/commands/.test(location.search), null, { timeout: 30_000 });
  const linked = await seen();
  await tour.click("#tour-prev");
  const returned = await seen();
  await tour.click("#reference");
  await tour.waitForFunction(() => /language/.test(location.search), null, { timeout: 30_000 });
  const header = await seen();
  await tour.close();
  return { opened, after, back, reference, linked, returned, header };
});

await step("runaway", async () => {
  await setText("prompt", config.runaway);
  await setText("world", "");
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
  await setText("prompt", config.deep);
  await setText("world", "");
  await page.fill("#input", "");
  return runAndRead();
});

await step("repl", async () => {
  await page.selectOption("#examples", config.examples[0]);
  await setText("world", "");
  for (const line of config.repl) {
    await page.fill("#repl-input", line);
    await page.press("#repl-input", "Enter");
    await page.waitForFunction(() => document.getElementById("status").textContent === "done", null,
                               { timeout: config.run_ms });
  }
  return { output: await page.textContent("#repl-output") };
});

report.timings = await page.evaluate(() => window.playground.timings).catch(() => null);

await step("second_visit", async () => {
  // what the first visit kept (IndexedDB: the cache folder, the bytecode, Pyodide's memory snapshot)
  await page.waitForFunction(() => Object.keys(window.playground.timings.steps).some((k) => k.startsWith("snapshot saved")),
                             null, { timeout: config.run_ms });
  const started = Date.now();
  await page.goto(config.url + "index.html?example=" + config.examples[2]);
  await waitStatus("ready", config.ready_ms);
  const ready_ms = Date.now() - started;
  const steps = await page.evaluate(() => window.playground.timings.steps);
  return { ready_ms, steps, ...(await runAndRead()) };
});
report.origins = [...requests];
await context.close();
process.stdout.write(JSON.stringify(report) + "\n");
