"""Editor fronts over the API: the debug adapter (DAP) and the language server (LSP)."""
