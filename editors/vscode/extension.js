// The client: starts `hexlore lsp` (pip install 'hexlore[lsp]') on stdio for Lore files and
// hexlore's YAML files. All the language knowledge is in the server (hexlore/lsp/).
"use strict";
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

/** The server's command line: the setting hexlore.command, ["hexlore", "lsp"] by default. */
function serverCommand() {
  const [command, ...args] = vscode.workspace.getConfiguration("hexlore").get("command") || ["hexlore", "lsp"];
  return { command, args, transport: TransportKind.stdio };
}

function activate(context) {
  const server = serverCommand();
  client = new LanguageClient("hexlore", "Lore (hexlore lsp)", { run: server, debug: server }, {
    documentSelector: [
      { scheme: "file", language: "lore" },
      { scheme: "file", language: "yaml", pattern: "**/scenarios/**/*.{yaml,yml}" },
    ],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverCommand };
