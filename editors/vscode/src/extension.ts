// The citegate extension: starts `citegate lsp` for Markdown, MDX and JSON answer docs (and, for
// its code lenses, every file on disk) and adds two commands on top of what the server offers:
// "Fix all citations in this doc" (the server's `source.fixAll.citegate` code action, applied to
// the buffer) and "Audit the workspace" (one `workspace/diagnostic` pull: every doc of every
// workspace folder, as `citegate audit` there reports it, into the Problems panel).
//
// Only the public `vscode` API and `vscode-languageclient` are used, so the extension runs the
// same in VS Code, Cursor, VSCodium and code-server.

import * as vscode from "vscode";
import {
  CodeAction,
  CodeActionRequest,
  CodeActionTriggerKind,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  ServerOptions,
} from "vscode-languageclient/node";
import { describeMissing, findBinary, INSTALL_COMMAND } from "./binary";

const FIX_ALL_KIND = "source.fixAll.citegate";

/** What one workspace audit found, for the message the command shows. */
interface AuditSummary {
  findings: number;
  docs: number;
}

/** citegate's diagnostics, wherever they are (open docs and the workspace's). */
function citegateDiagnostics(): AuditSummary {
  let findings = 0;
  let docs = 0;
  for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
    const ours = diagnostics.filter((d) => d.source === "citegate").length;
    findings += ours;
    docs += ours > 0 ? 1 : 0;
  }
  return { findings, docs };
}

/**
 * The language client's workspace-diagnostics loop pulls every two seconds, and each pull is a
 * whole `citegate audit` of every folder. The gate holds each pull until "Audit the workspace"
 * asks for one, so the workspace is audited when the user says so, once.
 */
class AuditGate {
  private waiting: (() => void) | undefined;
  private requested: ((summary: AuditSummary) => void)[] = [];
  private failed: ((error: unknown) => void)[] = [];

  /** Ask for one pull; resolves with what it found. */
  request(): Promise<AuditSummary> {
    const done = new Promise<AuditSummary>((resolve, reject) => {
      this.requested.push(resolve);
      this.failed.push(reject);
    });
    const release = this.waiting;
    this.waiting = undefined;
    release?.();
    return done;
  }

  /** Abandon the requests in flight (the client stopped). */
  abandon(why: string): void {
    const failed = this.failed;
    this.requested = [];
    this.failed = [];
    for (const reject of failed) {
      reject(new Error(why));
    }
  }

  middleware(): Middleware["provideWorkspaceDiagnostics"] {
    return async (resultIds, token, reporter, next) => {
      if (this.requested.length === 0) {
        await new Promise<void>((resolve) => {
          this.waiting = resolve;
          token.onCancellationRequested(() => resolve());
        });
      }
      if (token.isCancellationRequested) {
        return { items: [] };
      }
      const requested = this.requested;
      const failed = this.failed;
      this.requested = [];
      this.failed = [];
      try {
        const result = await next(resultIds, token, reporter);
        // The client has put the report into its diagnostics collection by now.
        const summary = citegateDiagnostics();
        requested.forEach((resolve) => resolve(summary));
        return result;
      } catch (error) {
        failed.forEach((reject) => reject(error));
        throw error;
      }
    };
  }
}

class Citegate {
  private client: LanguageClient | undefined;
  private readonly output = vscode.window.createOutputChannel("citegate");
  // One per client: a stopped client's held pull is never the one released.
  private gate = new AuditGate();
  private binaryWatcher: vscode.Disposable | undefined;
  private restarting: Promise<void> = Promise.resolve();

  /** Start (or restart) the server with the binary the settings name now. */
  restart(): Promise<void> {
    this.restarting = this.restarting
      .then(() => this.stop())
      .then(() => this.start())
      .catch((error) => this.output.appendLine(`citegate: restarting failed: ${error}`));
    return this.restarting;
  }

  async stop(): Promise<void> {
    this.binaryWatcher?.dispose();
    this.binaryWatcher = undefined;
    const client = this.client;
    this.client = undefined;
    this.gate.abandon("the citegate language server stopped");
    if (client !== undefined) {
      try {
        await client.stop();
      } catch (error) {
        this.output.appendLine(`citegate: stopping the server failed: ${error}`);
      }
    }
  }

  private async start(): Promise<void> {
    const configured = vscode.workspace.getConfiguration("citegate").get<string>("path", "");
    const found = findBinary(configured, process.env);
    if (found.binary === undefined) {
      const message = describeMissing(configured, process.env);
      this.output.appendLine(message);
      void vscode.window
        .showErrorMessage(message, "Copy install command", "Open settings")
        .then(async (choice) => {
          if (choice === "Copy install command") {
            await vscode.env.clipboard.writeText(INSTALL_COMMAND);
          } else if (choice === "Open settings") {
            await vscode.commands.executeCommand("workbench.action.openSettings", "citegate.path");
          }
        });
      // Installed later into a folder we know: started then.
      this.binaryWatcher = watchBinary(found.watch, () => void this.restart());
      return;
    }
    const binary = found.binary;
    this.output.appendLine(`citegate: starting ${binary} lsp`);
    const server: ServerOptions = { command: binary, args: ["lsp"] };
    const options: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "markdown" },
        { scheme: "file", language: "mdx" },
        { scheme: "file", language: "json" },
        { scheme: "file", language: "jsonl" },
        // Code files: the lenses saying which docs cite their lines.
        { scheme: "file" },
      ],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      middleware: { provideWorkspaceDiagnostics: (this.gate = new AuditGate()).middleware() },
    };
    const client = new LanguageClient("citegate", "citegate", server, options);
    this.client = client;
    this.binaryWatcher = watchBinary([binary], () => {
      this.output.appendLine(`citegate: ${binary} changed; restarting the server`);
      void this.restart();
    });
    try {
      await client.start();
    } catch (error) {
      this.output.appendLine(`citegate: ${binary} lsp did not start: ${error}`);
      void vscode.window.showErrorMessage(
        `citegate: \`${binary} lsp\` did not start (${error}). See the citegate output.`,
      );
    }
  }

  /** The server's fix-all code action for the active doc, applied to the buffer. */
  async fixAll(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const client = this.client;
    if (editor === undefined) {
      void vscode.window.showInformationMessage("citegate: open a Markdown or JSON doc first.");
      return;
    }
    if (client === undefined || !client.isRunning()) {
      void vscode.window.showErrorMessage("citegate: the language server is not running.");
      return;
    }
    const doc = editor.document;
    const whole = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
    const actions = await client.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: client.code2ProtocolConverter.asUri(doc.uri) },
      range: client.code2ProtocolConverter.asRange(whole),
      context: { diagnostics: [], only: [FIX_ALL_KIND], triggerKind: CodeActionTriggerKind.Invoked },
    });
    const fix = (actions ?? []).find(
      (a): a is CodeAction => "kind" in a && a.kind === FIX_ALL_KIND && a.edit !== undefined,
    );
    if (fix?.edit === undefined) {
      void vscode.window.showInformationMessage("citegate: no safe fix in this doc.");
      return;
    }
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(fix.edit);
    if (!(await vscode.workspace.applyEdit(edit))) {
      void vscode.window.showErrorMessage("citegate: the fixes could not be applied (the doc changed?).");
      return;
    }
    void vscode.window.showInformationMessage("citegate: the safe fixes are applied (save to keep them).");
  }

  /** One workspace pull, into the Problems panel. */
  async auditWorkspace(): Promise<void> {
    if (this.client === undefined || !this.client.isRunning()) {
      void vscode.window.showErrorMessage("citegate: the language server is not running.");
      return;
    }
    let summary: AuditSummary;
    try {
      summary = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: "citegate: auditing the workspace" },
        () => this.gate.request(),
      );
    } catch (error) {
      void vscode.window.showErrorMessage(`citegate: the workspace audit failed: ${error}`);
      return;
    }
    await vscode.commands.executeCommand("workbench.actions.view.problems");
    const findings = summary.findings === 1 ? "1 finding" : `${summary.findings} findings`;
    const docs = summary.docs === 1 ? "1 doc" : `${summary.docs} docs`;
    void vscode.window.showInformationMessage(
      summary.findings === 0 ? "citegate: no findings in the workspace." : `citegate: ${findings} in ${docs}.`,
    );
  }

  showOutput(): void {
    this.output.show(true);
  }

  dispose(): Promise<void> {
    return this.stop().then(() => this.output.dispose());
  }
}

/** Calls `changed` (once things settle) when one of `paths` is created, replaced or removed. */
function watchBinary(paths: string[], changed: () => void): vscode.Disposable {
  const watchers = paths.map((p) => {
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(dirname(p)), basename(p)),
    );
    let timer: NodeJS.Timeout | undefined;
    // `cargo install` and package managers replace a binary in several steps: wait for quiet.
    const settle = () => {
      clearTimeout(timer);
      timer = setTimeout(changed, 1000);
    };
    watcher.onDidCreate(settle);
    watcher.onDidChange(settle);
    watcher.onDidDelete(settle);
    return new vscode.Disposable(() => {
      clearTimeout(timer);
      watcher.dispose();
    });
  });
  return vscode.Disposable.from(...watchers);
}

function dirname(p: string): string {
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  return i <= 0 ? p.slice(0, i + 1) || "." : p.slice(0, i);
}

function basename(p: string): string {
  return p.slice(Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\")) + 1);
}

let citegate: Citegate | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const c = new Citegate();
  citegate = c;
  context.subscriptions.push(
    vscode.commands.registerCommand("citegate.fixAll", () => c.fixAll()),
    vscode.commands.registerCommand("citegate.auditWorkspace", () => c.auditWorkspace()),
    vscode.commands.registerCommand("citegate.restart", () => c.restart()),
    vscode.commands.registerCommand("citegate.showOutput", () => c.showOutput()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // The binary's path; the trace level, which the client also applies as it runs.
      if (e.affectsConfiguration("citegate")) {
        void c.restart();
      }
    }),
  );
  await c.restart();
}

export function deactivate(): Promise<void> | undefined {
  const c = citegate;
  citegate = undefined;
  return c?.dispose();
}
