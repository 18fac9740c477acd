// The LC-3 extension: a debugger type that runs `lc3jit dap` and a language client that
// runs `lc3jit lsp`; everything else (the language, its grammar) is in package.json.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

/** The lc3jit command and its first arguments, from the setting `lc3jit.command`. */
function lc3jit() {
  const [command, ...args] = vscode.workspace.getConfiguration('lc3jit').get('command', ['lc3jit']);
  return { command, args };
}

function activate(context) {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('lc3', {
      // An adapter started by the extension, or one already listening (docs/editors.md):
      // on a Unix socket (`socket`), or on a TCP port (`port`, with its `token`).
      createDebugAdapterDescriptor(session) {
        const { socket, port } = session.configuration;
        if (socket) {
          return new vscode.DebugAdapterNamedPipeServer(socket);
        }
        if (port) {
          return new vscode.DebugAdapterServer(port, '127.0.0.1');
        }
        const { command, args } = lc3jit();
        return new vscode.DebugAdapterExecutable(command, [...args, 'dap']);
      },
    }),
    vscode.debug.registerDebugConfigurationProvider('lc3', {
      // F5 on an .asm with no launch.json: debug that file, stopped at its first instruction.
      resolveDebugConfiguration(folder, config) {
        if (!config.type && !config.request && !config.name) {
          const editor = vscode.window.activeTextEditor;
          if (editor && editor.document.languageId === 'lc3') {
            Object.assign(config, { type: 'lc3', request: 'launch', name: 'Debug LC-3 program', program: '${file}', stopOnEntry: true });
          }
        }
        return config.program ? config : undefined;
      },
    }),
  );
  const { command, args } = lc3jit();
  client = new LanguageClient(
    'lc3jit',
    'LC-3 (lc3jit)',
    { command, args: [...args, 'lsp'] },
    { documentSelector: [{ scheme: 'file', language: 'lc3' }, { scheme: 'untitled', language: 'lc3' }] },
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
