// Which `citegate` binary to run: the `citegate.path` setting, else `citegate` on `PATH`. No
// `vscode` import here, so the lookup is tested in plain Node (`test/binary.test.js`).
//
// `citegate.path` is a machine-scoped setting (a workspace's `.vscode/settings.json` cannot set
// it) and relative `PATH` entries are skipped: opening a repository never runs a program from it.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** What the README says to run when no binary is found. */
export const INSTALL_COMMAND = "cargo install --locked citegate";

export interface Found {
  /** The binary to run, when there is one. */
  binary?: string;
  /** Where a binary would be picked up once it appears (the server then starts). */
  watch: string[];
}

function executable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string, home: string): string {
  return p === "~" || p.startsWith("~/") ? path.join(home, p.slice(1)) : p;
}

/** The folders of `env.PATH` searched for `citegate`: the absolute ones, in order. */
function searched(env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? env.Path ?? "").split(path.delimiter).filter((d) => path.isAbsolute(d));
}

/** The binary named by `configured` (absolute, or `~/…`), else `citegate` on `env.PATH`. */
export function findBinary(configured: string, env: NodeJS.ProcessEnv, home = os.homedir()): Found {
  const setting = configured.trim();
  if (setting !== "") {
    const file = expandHome(setting, home);
    if (!path.isAbsolute(file)) {
      return { watch: [] };
    }
    return executable(file) ? { binary: file, watch: [file] } : { watch: [file] };
  }
  const names = process.platform === "win32" ? ["citegate.exe", "citegate"] : ["citegate"];
  const dirs = searched(env);
  const candidates = dirs.flatMap((d) => names.map((n) => path.join(d, n)));
  const binary = candidates.find(executable);
  return binary === undefined ? { watch: candidates } : { binary, watch: [binary] };
}

/** The error shown when no binary is found: what was looked for (the `PATH` folders searched,
 * relative ones skipped), and how to install it. */
export function describeMissing(configured: string, env: NodeJS.ProcessEnv = process.env): string {
  const setting = configured.trim();
  const dirs = searched(env);
  const where =
    setting === ""
      ? `no \`citegate\` binary was found on PATH (searched: ${dirs.length > 0 ? dirs.join(path.delimiter) : "no absolute folder"}; relative entries are never searched)`
      : path.isAbsolute(expandHome(setting, os.homedir()))
        ? `citegate.path is "${setting}", which is not an executable file`
        : `citegate.path is "${setting}", which is not an absolute path`;
  return (
    `citegate: ${where}. Install citegate with \`${INSTALL_COMMAND}\` ` +
    "(or a release binary: https://github.com/citegate/citegate/releases), " +
    "or set citegate.path to the binary."
  );
}
