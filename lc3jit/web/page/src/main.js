// The page: an editor, a terminal, the debugger's buttons and panes, and the machine in a
// Web Worker (worker.js) that runs lc3jit under Pyodide. Links carry a program and its
// input: ?program=URL&keys=TEXT&run=1 (sym=URL for an .obj's symbols; engine=, edition=,
// os=1, max-steps=, max-output= too), or the source itself in the fragment:
// #name=NAME.asm&source=TEXT.
import { EditorView, basicSetup } from "codemirror";
import { GutterMarker, gutter } from "@codemirror/view";
import { RangeSet, StateEffect, StateField } from "@codemirror/state";
import { linter, lintGutter } from "@codemirror/lint";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import "./style.css";
import { lc3Language } from "./lc3-language.js";

const STOP_GRACE_MS = 1000; // a worker that has not stopped by then is ended and started again
const TEXT_KEPT = 200000; // characters of output (and of the debugger's lines) kept as text

const $ = (id) => document.getElementById(id);
const buttons = ["run", "stop", "step", "back", "translate", "share"].map($);

let worker = null;
let program = null; // {name, data: Uint8Array} of a binary, or {name, source} of assembly
let loaded = false; // the worker's machine is the program as shown
let stopTimer = null;
let breakpointsAsked = 0; // changes of the breakpoints sent and not yet answered
const pending = new Map(); // diagnostics asked for, by id
let nextId = 0;

const terminal = new Terminal({ convertEol: true, rows: 24, cols: 80, fontSize: 13 });
terminal.open($("terminal"));
terminal.onData((text) => {
  if (!worker) return;
  worker.postMessage({ kind: "keys", text: text.replace(/\r/g, "\n") });
});

const lint = linter(async (view) => {
  if (!program || program.data) return [];
  const source = view.state.doc.toString();
  const id = nextId++;
  const found = await new Promise((done) => {
    pending.set(id, done);
    worker.postMessage({ kind: "diagnose", id, source, name: program.name });
  });
  $("problems").textContent = found.map((d) => d.text).join("\n");
  return found.map((d) => {
    const line = view.state.doc.line(Math.min(Math.max(d.line, 1), view.state.doc.lines));
    const from = Math.min(line.from + Math.max(d.column - 1, 0), line.to);
    return { from, to: Math.max(from, line.to), severity: d.severity, message: d.message };
  });
}, { delay: 300 });

// Breakpoints in the editor's gutter: a click on a line's gutter sets or clears one. The
// machine places each at the first instruction at or after its line (as `break 12` does),
// and its reports move the marks there, once it has answered every change sent (a report
// made before the last click would put back marks the user has just changed).
const breakpointMark = new (class extends GutterMarker {
  toDOM() {
    return document.createTextNode("●");
  }
})();
const setBreakpoints = StateEffect.define(); // the lines (1-based) where the marks are
const breakpoints = StateField.define({
  create: () => RangeSet.empty,
  update(marks, transaction) {
    marks = marks.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (!effect.is(setBreakpoints)) continue;
      const doc = transaction.state.doc;
      const lines = [...new Set(effect.value)].filter((n) => n >= 1 && n <= doc.lines).sort((a, b) => a - b);
      marks = RangeSet.of(lines.map((n) => breakpointMark.range(doc.line(n).from)));
    }
    return marks;
  },
});

function breakpointLines(state = editor.state) {
  const lines = [];
  for (let mark = state.field(breakpoints).iter(); mark.value; mark.next()) {
    lines.push(state.doc.lineAt(mark.from).number);
  }
  return lines;
}

function toggleBreakpoint(view, line) {
  const number = view.state.doc.lineAt(line.from).number;
  const lines = breakpointLines(view.state);
  const next = lines.includes(number) ? lines.filter((n) => n !== number) : [...lines, number];
  view.dispatch({ effects: setBreakpoints.of(next) });
  if (loaded && worker && program && !program.data) {
    breakpointsAsked += 1;
    worker.postMessage({ kind: "breakpoints", lines: next });
  }
  return true;
}

const breakpointGutter = [
  breakpoints,
  gutter({
    class: "cm-breakpoint-gutter",
    markers: (view) => view.state.field(breakpoints),
    initialSpacer: () => breakpointMark,
    domEventHandlers: { mousedown: toggleBreakpoint },
  }),
];

const editor = new EditorView({
  parent: $("editor"),
  extensions: [
    basicSetup,
    breakpointGutter,
    lc3Language,
    lintGutter(),
    lint,
    EditorView.updateListener.of((update) => {
      if (update.docChanged && program && !program.data) loaded = false;
      if (update.startState.field(breakpoints) !== update.state.field(breakpoints)) {
        $("editor").dataset.breakpoints = breakpointLines(update.state).join(" "); // as shown
      }
    }),
  ],
});

function show(text) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
}

function append(element, text) {
  if (!text) return;
  const all = element.textContent + text;
  element.textContent = all.length > TEXT_KEPT ? all.slice(-TEXT_KEPT) : all;
  element.scrollTop = element.scrollHeight;
}

// The terminal's escapes (ESC [ ... a final byte: colours, cursor moves, clearing; ESC and
// one character) are for the terminal: the text beneath it leaves them out. An escape cut
// at the end of one report waits for the rest in the next.
const ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[^[])/g;
const ESCAPE_CUT = /\x1b(?:\[[0-?]*[ -/]*)?$/;
let escapeHeld = "";

function plainText(output) {
  const all = escapeHeld + output;
  const cut = all.search(ESCAPE_CUT);
  escapeHeld = cut < 0 ? "" : all.slice(cut);
  return (cut < 0 ? all : all.slice(0, cut)).replace(ESCAPE, "");
}

const limits = { max_steps: undefined, max_output: undefined }; // from the link (max-steps=, max-output=)

function options() {
  return {
    engine: $("engine").value,
    edition: Number($("edition").value),
    os: $("os").checked,
    ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
  };
}

function status(text) {
  $("status").textContent = text;
}

function setProgram(name, bytes) {
  const base = name.split("/").pop().split(/[?#]/)[0] || "program.asm";
  $("filename").textContent = base;
  if (base.toLowerCase().endsWith(".asm")) {
    program = { name: base, source: new TextDecoder("latin1").decode(bytes) };
    show(program.source);
  } else {
    program = { name: base, data: bytes, sym: null };
    show(`; ${base}: machine code, ${bytes.length} bytes (Run, Step, or see its translation)\n`);
  }
  loaded = false;
  if (worker) buttons.forEach((b) => (b.disabled = false));
}

function files() {
  if (!program.data) return [{ name: program.name, data: new TextEncoder().encode(editor.state.doc.toString()) }];
  const list = [{ name: program.name, data: program.data }];
  if (program.sym) list.push({ name: program.name.replace(/\.obj$/i, ".sym"), data: program.sym });
  return list;
}

function ensureLoaded() {
  if (loaded || !program) return;
  terminal.reset();
  $("output").textContent = "";
  escapeHeld = "";
  $("debugger").textContent = program.note ?? ""; // what loading the program had to say
  const lines = program.data ? [] : breakpointLines();
  worker.postMessage({ kind: "load", files: files(), options: options(), breakpoints: lines });
  loaded = true;
}

function report(message) {
  if (stopTimer && message.state !== "running") {
    clearTimeout(stopTimer);
    stopTimer = null;
  }
  if (message.output) {
    terminal.write(message.output);
    append($("output"), plainText(message.output));
  }
  append($("debugger"), message.said);
  if (message.registers) $("registers").textContent = message.registers.join("\n");
  if (message.memory) $("memory").textContent = message.memory.join("\n");
  if (message.source) $("source").textContent = message.source.join("\n");
  if (message.state) {
    document.body.dataset.state = message.state;
    const words = { running: "Running", waiting: "Waiting for a key", stopped: "Stopped", ended: "Ended", ready: "Loaded" };
    status(words[message.state] ?? message.state);
  }
  if (message.instructions !== undefined) {
    const mips = message.mips ? `${message.mips.toFixed(2)} MIPS` : "";
    $("speed").textContent = `${message.instructions.toLocaleString()} instructions ${mips} ${message.engine}`;
    Object.assign($("speed").dataset, { instructions: message.instructions, mips: message.mips, engine: message.engine });
  }
  if (message.answers === "breakpoints") breakpointsAsked -= 1;
  const shown = breakpointLines();
  const settled = breakpointsAsked === 0 && loaded && program && !program.data;
  if (settled && message.breakpoints && String(message.breakpoints) !== String(shown)) {
    editor.dispatch({ effects: setBreakpoints.of(message.breakpoints) }); // where the machine put them
  }
  if (message.line && program && !program.data && message.file === program.name) {
    const line = editor.state.doc.line(Math.min(message.line, editor.state.doc.lines));
    editor.dispatch({ selection: { anchor: line.from }, scrollIntoView: true });
  }
}

const receive = {
  ready({ seconds, python, version, snapshot }) {
    document.body.dataset.ready = "yes";
    Object.assign(document.body.dataset, { readySeconds: seconds, pythonSeconds: python, snapshot });
    status(`Ready (Pyodide ${version}${snapshot ? " from its snapshot" : ""}, ${seconds.toFixed(1)} s)`);
    if (program) buttons.forEach((b) => (b.disabled = false));
    startFromLink();
  },
  warm({ seconds }) {
    document.body.dataset.warmSeconds = String(seconds); // the translator imported
  },
  loaded: report,
  report,
  error(message) {
    loaded = false;
    append($("debugger"), message.said);
    status("Error");
    document.body.dataset.state = "error";
  },
  diagnostics({ id, diagnostics }) {
    pending.get(id)?.(diagnostics);
    pending.delete(id);
  },
  failed({ message }) {
    status(`The machine failed: ${message}`);
  },
  translation({ html }) {
    $("translation").hidden = false;
    $("translation-frame").srcdoc = html;
    $("translation").scrollIntoView({ behavior: "smooth" });
    status("Translation shown below");
  },
};

// The machine index.html started (startMachine), with what it said before this script ran.
function takeMachine({ worker: started, early }) {
  worker = started;
  worker.onmessage = ({ data }) => receive[data.kind](data);
  worker.onerror = (event) => receive.failed(event);
  for (const data of early) receive[data.kind](data);
}

$("run").onclick = () => {
  ensureLoaded();
  worker.postMessage({ kind: "run" });
  report({ state: "running" }); // at once: the last run's "stopped" is not this run's
  terminal.focus();
};
$("step").onclick = () => {
  ensureLoaded();
  worker.postMessage({ kind: "step" });
};
$("back").onclick = () => worker.postMessage({ kind: "back" });
$("stop").onclick = () => {
  worker.postMessage({ kind: "stop" });
  clearTimeout(stopTimer);
  stopTimer = setTimeout(() => {
    // A slice that does not end (a translation of a huge program): a fresh machine.
    worker.terminate();
    loaded = false;
    document.body.dataset.ready = "no";
    append($("debugger"), "Stopped: the machine was started again.\n");
    takeMachine(startMachine());
  }, STOP_GRACE_MS);
};
$("translate").onclick = () => {
  ensureLoaded();
  worker.postMessage({ kind: "translation", options: options() });
};
$("share").onclick = () => {
  const fragment = new URLSearchParams({ name: program.name, source: editor.state.doc.toString() });
  history.replaceState(null, "", `#${fragment}`);
  navigator.clipboard?.writeText(location.href).catch(() => {});
  status("Link to this source in the address bar");
};
for (const id of ["engine", "edition", "os"]) $(id).onchange = () => (loaded = false);
$("example").onchange = async () => {
  const chosen = $("example").selectedOptions[0];
  if (chosen.value) await fetchProgram(chosen.value, chosen.dataset.sym);
};

async function fetchBytes(url) {
  const response = await fetch(new URL(url, document.baseURI));
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

// sym: the URL of an .obj's symbols (its labels in the panes), if it has one. Without its
// symbols a program still runs: a symbol file that cannot be fetched is only reported.
async function fetchProgram(url, sym) {
  try {
    setProgram(url, await fetchBytes(url));
  } catch (error) {
    append($("debugger"), `${error.message}\n`);
    status("Error");
    document.body.dataset.state = "error";
    return false;
  }
  if (sym && program.data) {
    try {
      program.sym = await fetchBytes(sym);
    } catch (error) {
      program.note = `${error.message} (running without its labels)\n`;
      append($("debugger"), program.note);
    }
  }
  return true;
}

let linkDone = false;
async function startFromLink() {
  if (linkDone) return; // once: not again when a stopped machine is started again
  linkDone = true;
  const query = new URLSearchParams(location.search);
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (query.get("engine")) $("engine").value = query.get("engine");
  if (query.get("edition")) $("edition").value = query.get("edition");
  $("os").checked = query.get("os") === "1";
  for (const [name, option] of [["max-steps", "max_steps"], ["max-output", "max_output"]]) {
    const value = Number(query.get(name));
    if (query.has(name) && Number.isInteger(value) && value > 0) limits[option] = value;
  }
  if (fragment.has("source")) {
    setProgram(fragment.get("name") || "program.asm", new TextEncoder().encode(fragment.get("source")));
  } else if (query.get("program")) {
    if (!(await fetchProgram(query.get("program"), query.get("sym")))) return;
  } else {
    await fetchProgram("examples/hello.asm");
  }
  if (query.get("keys")) {
    ensureLoaded();
    worker.postMessage({ kind: "keys", text: query.get("keys") });
  }
  if (query.get("run") === "1") $("run").onclick();
}

// A link to another source in this page (the fragment changed): that source, as a new page would.
window.addEventListener("hashchange", () => {
  linkDone = false;
  startFromLink();
});

takeMachine(firstMachine);
