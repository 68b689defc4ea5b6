// The oomlint extension: starts `oomlint server` and hands it the Python files.

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;

function serverOptions(): ServerOptions {
  const config = vscode.workspace.getConfiguration("oomlint");
  const command = config.get<string>("path", "oomlint") || "oomlint";
  const args = ["server", ...config.get<string[]>("args", [])];
  return { command, args, transport: TransportKind.stdio };
}

function clientOptions(): LanguageClientOptions {
  const config = vscode.workspace.getConfiguration("oomlint");
  return {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    initializationOptions: {
      unsafeFixes: config.get<boolean>("unsafeFixes", false),
    },
    synchronize: {
      // The server also registers these watchers itself; listing them keeps older clients working.
      fileEvents: vscode.workspace.createFileSystemWatcher(
        "**/{pyproject.toml,oomlint.toml,.oomlint.toml}",
      ),
    },
  };
}

async function start(): Promise<void> {
  client = new LanguageClient("oomlint", "oomlint", serverOptions(), clientOptions());
  await client.start();
}

async function stop(): Promise<void> {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("oomlint.restart", async () => {
      await stop();
      await start();
    }),
    vscode.commands.registerCommand("oomlint.fixAllInFile", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!client || !editor) {
        return;
      }
      await client.sendRequest(ExecuteCommandRequest.type, {
        command: "oomlint.fixAll",
        arguments: [{ uri: editor.document.uri.toString() }],
      });
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("oomlint")) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
