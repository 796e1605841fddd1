// Bundles editor.mjs and the CodeMirror packages it imports into one
// minified file inside the package (runvil/host/playground/site/codemirror.js),
// so the site needs no network, and writes the licenses of every bundled
// package beside it (codemirror.LICENSE.txt).
//
// usage (here): npm install && node build.mjs
import { build } from "esbuild";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const site = path.join(here, "..", "..", "runvil", "host", "playground", "site");
const out = path.join(site, "codemirror.js");

const result = await build({
  entryPoints: [path.join(here, "editor.mjs")],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "none",
  metafile: true,
  outfile: out,
});

// each bundled package's name, version and license text
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.set(m[1], path.join(here, "node_modules", m[1]));
}
let text = "codemirror.js bundles these packages from the npm registry, each under the license below.\n";
for (const [name, folder] of [...packages].sort()) {
  const meta = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  const file = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => path.join(folder, f)).find(existsSync);
  text += `\n==== ${name} ${meta.version} (${meta.license})\n\n`;
  text += file ? readFileSync(file, "utf8").trim() + "\n" : `${meta.license}, by ${JSON.stringify(meta.author)}\n`;
}
writeFileSync(path.join(site, "codemirror.LICENSE.txt"), text);
console.log(`${out}: ${readFileSync(out).length} bytes, ${packages.size} packages`);
