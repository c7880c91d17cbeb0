#!/usr/bin/env node
// Runs Khronos' glTF-Validator (the npm package `gltf-validator`, installed
// by scripts/test under target/npm) on each file given and prints one JSON
// line per file: {"file", "errors", "warnings", "infos", "messages": [...]}
// (messages: code, severity 0 error .. 3 hint, pointer, message). Exits 0
// when every file was read; the counts are for the caller to judge.
//   node scripts/gltf-validate.js A.glb [B.glb ...]
const fs = require('fs');
const path = require('path');
const here = path.dirname(__filename);
const validator = require(path.join(here, '..', 'target', 'npm', 'node_modules', 'gltf-validator'));

async function main() {
  for (const file of process.argv.slice(2)) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 0,
      externalResourceFunction: (uri) =>
        Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
    });
    const i = report.issues;
    console.log(JSON.stringify({
      file,
      errors: i.numErrors,
      warnings: i.numWarnings,
      infos: i.numInfos,
      messages: i.messages.map((m) => ({ code: m.code, severity: m.severity, pointer: m.pointer, message: m.message })),
    }));
  }
}

main().catch((e) => {
  console.error(String(e && e.stack || e));
  process.exit(2);
});
