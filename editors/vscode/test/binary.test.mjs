// The binary lookup (`src/binary.ts`, compiled to `out/binary.js`), in plain Node:
// `node --test test/` after `tsc -p .`.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";

const { findBinary, describeMissing, INSTALL_COMMAND } = createRequire(import.meta.url)("../out/binary.js");

function folder() {
  return fs.mkdtempSync(path.join(os.tmpdir(), "citegate-vscode-"));
}

function program(dir, mode = 0o755) {
  const file = path.join(dir, "citegate");
  fs.writeFileSync(file, "#!/bin/sh\n");
  fs.chmodSync(file, mode);
  return file;
}

test("citegate on PATH is found, the first one wins", () => {
  const [a, b] = [folder(), folder()];
  program(a);
  const second = program(b);
  const found = findBinary("", { PATH: [path.join(a, "nothing"), b, a].join(path.delimiter) });
  assert.equal(found.binary, second);
});

test("a file that is not executable is not a binary", () => {
  const dir = folder();
  program(dir, 0o644);
  const found = findBinary("", { PATH: dir });
  assert.equal(found.binary, undefined);
  assert.deepEqual(found.watch, [path.join(dir, "citegate")]);
});

test("relative PATH entries are skipped: a workspace's own citegate is never run", () => {
  const dir = folder();
  program(dir);
  const before = process.cwd();
  process.chdir(dir);
  try {
    assert.equal(findBinary("", { PATH: ["." , "bin"].join(path.delimiter) }).binary, undefined);
  } finally {
    process.chdir(before);
  }
});

test("citegate.path wins over PATH, ~ is the home folder, relative is refused", () => {
  const [home, onPath] = [folder(), folder()];
  program(onPath);
  const configured = program(home);
  assert.equal(findBinary(configured, { PATH: onPath }).binary, configured);
  assert.equal(findBinary("~/citegate", { PATH: onPath }, home).binary, configured);
  assert.equal(findBinary("citegate", { PATH: onPath }, home).binary, undefined);
  assert.equal(findBinary(path.join(home, "nope"), { PATH: onPath }).binary, undefined);
});

test("the missing-binary message names the install command and the setting", () => {
  const onPath = describeMissing("", { PATH: ["/opt/a", "rel/bin", "/usr/bin"].join(path.delimiter) });
  assert.match(onPath, /no `citegate` binary was found on PATH/);
  // Which folders were searched, in order, without the relative entry that never is.
  assert.ok(onPath.includes(`(searched: /opt/a${path.delimiter}/usr/bin; relative entries are never searched)`), onPath);
  assert.match(describeMissing("", { PATH: "" }), /searched: no absolute folder/);
  assert.ok(onPath.includes(INSTALL_COMMAND));
  assert.equal(INSTALL_COMMAND, "cargo install --locked citegate");
  assert.match(describeMissing("/opt/citegate"), /citegate\.path is "\/opt\/citegate", which is not an executable file/);
  assert.match(describeMissing("bin/citegate"), /not an absolute path/);
});
