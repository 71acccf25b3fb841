// The extension in a real VS Code: code-server with the packaged .vsix installed, driven by
// headless Chromium through puppeteer-core. Run by `tests/it/vscode.rs`, which builds the example
// repository, computes the oracles (`citegate audit --format json`, the bytes `citegate fix`
// writes) and compares them with what this script prints: one JSON object on stdout.
//
// Environment: CODE_SERVER (its binary; Node 24 first on PATH), CHROMIUM, PUPPETEER (the folder
// holding node_modules/puppeteer-core), VSIX, CITEGATE_BIN, REPO (the workspace), WORK (a scratch
// folder: user data, extensions, screenshots on failure), EXPECT_ALL and EXPECT_DOC (how many
// findings the CLI reports in the workspace and in the doc: how many rows to wait for).
//
// Steps, each read back from the UI: "citegate: Audit the workspace" from the command palette
// (the Problems panel then lists every doc's findings), the wiki page opened (its diagnostics),
// the quick fix on its fixable citation chosen from the lightbulb menu and saved (the bytes on
// disk), then undone, and "citegate: Fix all citations in this doc" run and saved.

import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    throw new Error(`e2e: ${name} is not set`);
  }
  return value;
};
const [codeServer, chromium, vsix, citegateBin, repo, work] = [
  "CODE_SERVER", "CHROMIUM", "VSIX", "CITEGATE_BIN", "REPO", "WORK",
].map(env);
const [expectAll, expectDoc] = ["EXPECT_ALL", "EXPECT_DOC"].map((name) => Number(env(name)));
const puppeteer = createRequire(path.join(env("PUPPETEER"), "/"))("puppeteer-core");
const DOC = "docs/wiki/cache.md";
const log = (...args) => console.error("e2e:", ...args);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll `probe` until it returns a truthy value; fail with `what` after `ms`. */
async function until(what, probe, ms = 60000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await probe();
    if (last) {
      return last;
    }
    await sleep(250);
  }
  throw new Error(`e2e: timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

const userData = path.join(work, "user-data");
const extensions = path.join(work, "extensions");
fs.mkdirSync(path.join(userData, "User"), { recursive: true });
const config = path.join(work, "code-server.yaml");
fs.writeFileSync(config, "auth: none\n");
// The server resolves the login shell's environment for the extension host, so PATH set here
// would not reach it: the binary is named by the setting (the PATH lookup is unit-tested).
// `citegate.path` is machine-scoped: the server reads it from the machine's settings.
fs.mkdirSync(path.join(userData, "Machine"), { recursive: true });
fs.writeFileSync(path.join(userData, "Machine", "settings.json"), JSON.stringify({ "citegate.path": citegateBin }));
fs.writeFileSync(
  path.join(userData, "User", "settings.json"),
  JSON.stringify({
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": false,
    "chat.disableAIFeatures": true,
    "files.autoSave": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
  }),
);
const common = ["--config", config, "--user-data-dir", userData, "--extensions-dir", extensions];

const installed = execFileSync(codeServer, [...common, "--install-extension", vsix], { encoding: "utf8" });
log(installed.trim());
const listed = execFileSync(codeServer, [...common, "--list-extensions", "--show-versions"], { encoding: "utf8" });
if (!/^citegate\.citegate@/m.test(listed)) {
  throw new Error(`e2e: the .vsix did not install: ${listed}`);
}

const server = spawn(
  codeServer,
  [...common, "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry",
    "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", repo],
  { stdio: ["ignore", "pipe", "pipe"], detached: true },
);
let serverLog = "";
server.stdout.on("data", (d) => (serverLog += d));
server.stderr.on("data", (d) => (serverLog += d));
const stopServer = () => {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {}
};
process.on("exit", stopServer);

let browser;
let page;
try {
  const url = await until("code-server to listen", () =>
    serverLog.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1],
  );
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    defaultViewport: { width: 1600, height: 2000 },
  });
  page = await browser.newPage();
  await page.goto(`${url}?folder=${encodeURIComponent(repo)}`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector(".monaco-workbench .part.editor", { timeout: 90000 });
  await sleep(2000);

  const keys = async (...combo) => {
    for (const k of combo) await page.keyboard.down(k);
    for (const k of combo.reverse()) await page.keyboard.up(k);
  };
  // The palette lists a remote extension's commands once the workbench has them: on a fresh
  // profile that can be after the first look, so it is closed and opened again until it does.
  const palette = async (command) => {
    const end = Date.now() + 90000;
    for (;;) {
      await keys("F1");
      await page.waitForSelector(".quick-input-widget input", { visible: true });
      await page.keyboard.type(command);
      const listed = await until(`the command "${command}" in the palette`, () =>
        page.$$eval(".quick-input-widget .monaco-list-row", (rows, want) =>
          rows.some((r) => r.innerText.includes(want)), command),
        5000,
      ).catch((error) => (Date.now() < end ? false : Promise.reject(error)));
      if (listed) {
        break;
      }
      await page.keyboard.press("Escape");
      await sleep(1000);
    }
    await page.keyboard.press("Enter");
  };
  const notifications = () =>
    page.$$eval(".notifications-toasts .notification-list-item-message", (ns) => ns.map((n) => n.innerText));
  /** The Problems panel: one entry per marker, with its file. */
  const problems = () =>
    page.$$eval(".markers-panel .monaco-list-row", (rows) => {
      const out = [];
      let file = null;
      for (const r of rows) {
        const label = r.getAttribute("aria-label") || "";
        const file_ = label.match(/problems? in file (\S+) of folder (\S+)/);
        if (file_) {
          file = `${file_[2]}/${file_[1]}`;
          continue;
        }
        const at = r.innerText.match(/\[Ln (\d+), Col (\d+)\]/);
        const parts = r.innerText.split("\n").map((s) => s.trim()).filter(Boolean);
        const severity = label.split(":")[0];
        const code = parts.find((p) => /^[a-z]+(-[a-z]+)+$/.test(p));
        if (at) {
          out.push({ file, severity, code, line: +at[1], column: +at[2], message: parts[0] });
        }
      }
      return out;
    });
  const text = () => fs.readFileSync(path.join(repo, DOC), "utf8");
  const original = text();

  // The workspace audit, before any doc is open.
  await palette("citegate: Audit the workspace");
  const said = await until("the audit's message", async () =>
    (await notifications()).find((n) => n.startsWith("citegate:") && n.includes("doc")),
  90000);
  await palette("View: Toggle Maximized Panel");
  // As many rows as the CLI has findings (the comparison itself is the Rust test's).
  const workspace = await until(`the workspace's ${expectAll} problems`, async () => {
    const rows = await problems();
    return rows.length >= expectAll && rows.every((r) => r.code) && rows;
  });

  // The wiki page opened: its own diagnostics, pulled for the open doc.
  await keys("Control", "KeyP");
  await page.waitForSelector(".quick-input-widget input", { visible: true });
  await page.keyboard.type(DOC);
  await until("the doc in quick open", () =>
    page.$$eval(".quick-input-widget .monaco-list-row", (rows) => rows.length > 0),
  );
  await page.keyboard.press("Enter");
  await page.waitForSelector(".monaco-editor .view-lines", { visible: true });
  const opened = await until(`the doc's ${expectDoc} problems`, async () => {
    const rows = (await problems()).filter((p) => p.file === DOC);
    return rows.length >= expectDoc && rows.every((r) => r.code) && rows;
  });

  // The quick fix on line 20 (the quote is at lines 16-17), from the lightbulb menu.
  const goTo = async (line, column) => {
    await keys("Control", "KeyG");
    await page.waitForSelector(".quick-input-widget input", { visible: true });
    await page.keyboard.type(`${line}:${column}`);
    await page.keyboard.press("Enter");
    await sleep(500);
  };
  const save = async (before) => {
    // The keyboard goes to the editor (after the palette it may be elsewhere, and Chromium's own
    // Ctrl+S is "save the page"). Saved again every 2 s until the bytes change: a command's edit
    // comes from the server and may land after the first Ctrl+S, which then saved the doc as
    // it was (a flake seen in CI under load).
    let polls = 0;
    return until("the doc saved", async () => {
      if (polls++ % 8 === 0) {
        await page.click(".monaco-editor .view-lines");
        await keys("Control", "KeyS");
      }
      const now = text();
      return now !== before && now;
    });
  };
  // The menu lists what the server answered when it opened: asked again until the fix is there.
  const menuEnd = Date.now() + 60000;
  let choice;
  while (!choice) {
    await page.click(".monaco-editor .view-lines");
    await goTo(20, 1);
    await keys("Control", "Period");
    choice = await until("the quick fix in the menu", () =>
      page.$$eval(".action-widget .monaco-list-row", (rows) =>
        rows.map((r) => r.innerText.trim()).find((t) => t.startsWith("Cite ")),
      ),
      5000,
    ).catch((error) => (Date.now() < menuEnd ? undefined : Promise.reject(error)));
    if (!choice) {
      await page.keyboard.press("Escape");
    }
  }
  for (const row of await page.$$(".action-widget .monaco-list-row")) {
    if ((await row.evaluate((r) => r.innerText.trim())) === choice) {
      await row.click();
      break;
    }
  }
  const afterQuickFix = await save(original);
  const afterFix = await until("the fixed citation's diagnostic to go", async () => {
    const rows = (await problems()).filter((p) => p.file === DOC);
    return rows.length === opened.length - 1 && rows.every((r) => r.code) && rows;
  });

  // Undone and saved: the original bytes; then the fix-all command.
  await keys("Control", "KeyZ");
  const undone = await save(afterQuickFix);
  await palette("citegate: Fix all citations in this doc");
  const afterFixAll = await save(undone);
  const shown = await notifications();

  // A setting changed: the server restarts with it. A path that is no program: stopped (its
  // diagnostics go) and an error says what to install; the real one again: checked again.
  const machine = path.join(userData, "Machine", "settings.json");
  const missing = path.join(work, "no-such-citegate");
  fs.writeFileSync(machine, JSON.stringify({ "citegate.path": missing }));
  const missingSaid = await until("the missing-binary error", async () =>
    (await notifications()).find((n) => n.includes(missing)),
  );
  const stopped = await until("the stopped server's diagnostics to go", async () => {
    const rows = (await problems()).filter((p) => p.file === DOC);
    return rows.length === 0 && "gone";
  });
  fs.writeFileSync(machine, JSON.stringify({ "citegate.path": citegateBin }));
  const restarted = await until("the restarted server's diagnostics", async () => {
    const rows = (await problems()).filter((p) => p.file === DOC);
    return rows.length === afterFix.length && rows.every((r) => r.code) && rows;
  });

  // The binary replaced as an install does (a new file renamed over it): the server restarts.
  const outputLog = () => {
    const logs = path.join(userData, "logs");
    const found = [];
    const walk = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith("-citegate.log")) found.push(fs.readFileSync(p, "utf8"));
      }
    };
    walk(logs);
    return found.join("");
  };
  const replaced = `${citegateBin}.new`;
  fs.copyFileSync(citegateBin, replaced);
  fs.chmodSync(replaced, 0o755);
  fs.renameSync(replaced, citegateBin);
  const restartedOnReplace = await until("the restart on the replaced binary", () =>
    outputLog().includes(`citegate: ${citegateBin} changed; restarting the server`) && "restarted",
  );
  const afterReplace = await until("the diagnostics after the binary was replaced", async () => {
    const rows = (await problems()).filter((p) => p.file === DOC);
    return rows.length === afterFix.length && rows.every((r) => r.code) && rows;
  });

  const result = {
    auditMessage: said,
    notifications: shown,
    missingSaid,
    stopped,
    restarted,
    restartedOnReplace,
    afterReplace,
    quickFixTitle: choice,
    workspace,
    opened,
    afterFix,
    undoneIsOriginal: undone === original,
    afterQuickFix,
    afterFixAll,
  };
  process.stdout.write(JSON.stringify(result, null, 1) + "\n");
} catch (error) {
  if (page) {
    const shot = path.join(work, "failure.png");
    await page.screenshot({ path: shot }).catch(() => {});
    log(`screenshot: ${shot}`);
  }
  log(`code-server's log:\n${serverLog}`);
  throw error;
} finally {
  await browser?.close();
  stopServer();
}
