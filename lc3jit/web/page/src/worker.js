// The machine's thread: Pyodide, lc3jit, and the program the page runs. The page never
// waits for it: a run goes in slices of instructions, and between two slices the worker
// reads the page's messages (Stop, keys typed), so Stop takes effect at the next slice.
// Every reply is a report of lc3jit.web.machine, posted as it is.

import { unzip } from "./unzip.js";

const SLICE_SECONDS = 0.03; // a slice's length: how soon Stop and keys are seen
const SITE = "/lc3jit-site"; // where lc3jit's sources are unpacked in Pyodide's file system
const PROGRAMS = "/programs"; // the program's files, as the page gave them

let pyodide = null;
let web = null; // the Python module lc3jit.web.machine
let machine = null; // its PageMachine, once a program is loaded
let programs = []; // the paths it was loaded from
let running = false; // Run pressed and not stopped: slices go on (waiting for keys too)
let slice = 10000; // instructions a slice, adjusted to last about SLICE_SECONDS

const toJs = (proxy) => {
  const value = proxy.toJs({ dict_converter: Object.fromEntries });
  proxy.destroy();
  return value;
};

function post(kind, report) {
  self.postMessage({ kind, ...report });
}

// A yield to the event loop with no timer clamp: the page's messages are read here.
const channel = new MessageChannel();
let resume = null;
channel.port1.onmessage = () => resume();
const yieldToMessages = () => new Promise((done) => { resume = done; channel.port2.postMessage(0); });

// The memory snapshot (lc3jit web build makes one from a local Pyodide): Pyodide's memory
// with CPython started and lc3jit imported, after its length (4 bytes, little-endian), all
// gzipped. lc3jit web serve sends it as Content-Encoding: gzip, so that the browser
// inflates it away from this thread; from another server it is inflated here (its name
// does not end in .gz, so none sends it so by mistake). It is read into an array made once
// the length is known: Pyodide sizes its memory by it and instantiates its WebAssembly
// meanwhile, and waits for `filled` only to copy the snapshot in.
const MAX_SNAPSHOT = 1 << 30;
const GZIP = [0x1f, 0x8b]; // a gzip stream's first bytes (a length, a multiple of 16, never starts so)

async function fetchSnapshot(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const reader = response.body.getReader();
  const first = await reader.read();
  if (first.done) throw new Error(`${url}: empty`);
  let body = new ReadableStream({
    start: (controller) => controller.enqueue(first.value),
    pull: async (controller) => {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
  if (first.value[0] === GZIP[0] && first.value[1] === GZIP[1]) {
    body = body.pipeThrough(new DecompressionStream("gzip"));
  }
  const parts = body.getReader();
  let head = new Uint8Array(0);
  while (head.length < 4) {
    const { done, value } = await parts.read();
    if (done) throw new Error(`${url}: cut short`);
    const longer = new Uint8Array(head.length + value.length);
    longer.set(head);
    longer.set(value, head.length);
    head = longer;
  }
  const length = new DataView(head.buffer).getUint32(0, true);
  if (length > MAX_SNAPSHOT) throw new Error(`${url}: ${length} bytes`);
  const memory = new Uint8Array(length);
  const filled = (async () => {
    let at = 0;
    for (let part = { value: head.subarray(4) }; !part.done; part = await parts.read()) {
      if (at + part.value.length > length) throw new Error(`${url}: longer than it says`);
      memory.set(part.value, at);
      at += part.value.length;
    }
    if (at !== length) throw new Error(`${url}: shorter than it says`);
  })();
  filled.catch(() => {}); // handled where Pyodide waits for it
  return { memory, filled };
}

// Pyodide started from the snapshot if there is one that loads, else from the start.
async function startPyodide(pyodideUrl, snapshotUrl) {
  const snapshot = snapshotUrl ? fetchSnapshot(snapshotUrl) : null;
  snapshot?.catch(() => {}); // handled below, when loadPyodide awaits it
  const [{ loadPyodide }, { default: createModule }] = await Promise.all([
    import(pyodideUrl + "pyodide.mjs"),
    import(pyodideUrl + "pyodide.asm.mjs"),
  ]);
  if (snapshot) {
    try {
      const fromSnapshot = await loadPyodide({
        indexURL: pyodideUrl,
        _loadSnapshot: snapshot.then(({ memory }) => memory),
        createPyodideModule: async (settings) => {
          const module = await createModule(settings);
          await (await snapshot).filled;
          return module;
        },
      });
      return [fromSnapshot, true];
    } catch {
      // A snapshot of another Pyodide build, or none: CPython started as without one.
    }
  }
  return [await loadPyodide({ indexURL: pyodideUrl, createPyodideModule: createModule }), false];
}

async function start({ pyodideUrl, snapshotUrl }) {
  const began = performance.now();
  const sources = fetch(new URL("lc3jit.zip", self.location)).then((response) => {
    if (!response.ok) throw new Error(`lc3jit.zip: ${response.status} ${response.statusText}`);
    return response.arrayBuffer().then(unzip);
  });
  sources.catch(() => {}); // handled below, once Pyodide is loaded
  let snapshot;
  [pyodide, snapshot] = await startPyodide(pyodideUrl, snapshotUrl);
  const python = performance.now();
  for (const [name, data] of await sources) {
    const path = `${SITE}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, data);
  }
  pyodide.FS.mkdirTree(PROGRAMS);
  pyodide.runPython(`import sys\nif ${JSON.stringify(SITE)} not in sys.path: sys.path.insert(0, ${JSON.stringify(SITE)})`);
  web = pyodide.pyimport("lc3jit.web.machine");
  const seconds = (performance.now() - began) / 1000;
  post("ready", { seconds, python: (python - began) / 1000, version: pyodide.version, snapshot });
  const warming = performance.now();
  web.warm_up();
  post("warm", { seconds: (performance.now() - warming) / 1000 });
}

function load({ files, options, breakpoints }) {
  running = false;
  if (machine) machine.destroy();
  machine = null;
  for (const name of pyodide.FS.readdir(PROGRAMS)) {
    if (name !== "." && name !== "..") pyodide.FS.unlink(`${PROGRAMS}/${name}`);
  }
  const paths = files.map(({ name, data }) => {
    const path = `${PROGRAMS}/${name}`;
    pyodide.FS.writeFile(path, data);
    return path;
  });
  programs = paths.filter((p) => !p.endsWith(".sym")); // a .sym is found beside its .obj
  const result = web.load.callKwargs(programs, options); // (PageMachine or None, error)
  const error = result.get(1);
  machine = result.get(0) ?? null;
  result.destroy();
  if (error) {
    post("error", { said: error + "\n" });
    return;
  }
  post("loaded", toJs(machine.set_breakpoints(breakpoints ?? [])));
}

async function run() {
  running = true;
  while (running && machine) {
    const started = performance.now();
    const report = toJs(machine.run(slice));
    const took = (performance.now() - started) / 1000;
    if (report.state === "running" && took > 0) {
      slice = Math.max(1000, Math.min(5e6, Math.round(slice * Math.min(4, SLICE_SECONDS / took))));
    }
    post("report", report);
    if (report.state === "ended" || report.state === "stopped") running = false;
    if (report.state === "waiting") return; // the next keys go on with it
    await yieldToMessages();
  }
}

function command(name) {
  running = false;
  if (machine) post("report", toJs(machine[name]()));
}

const handlers = {
  start,
  load,
  run: () => (running ? undefined : run()),
  stop: () => command("stop"),
  step: () => command("step"),
  back: () => command("back"),
  breakpoints: ({ lines }) => {
    let placed = {};
    try {
      if (machine) placed = toJs(machine.set_breakpoints(lines));
    } finally {
      post("report", { ...placed, answers: "breakpoints" }); // the page counts the answers
    }
  },
  keys: ({ text }) => {
    if (!machine) return;
    const report = toJs(machine.type_keys(text));
    if (running && report.state === "running") run();
  },
  diagnose: ({ id, source, name }) => {
    post("diagnostics", { id, diagnostics: toJs(web.diagnostics(source, name)) });
  },
  translation: ({ options }) => {
    if (!machine) return;
    const page = pyodide.pyimport("lc3jit.inspection.page");
    const html = page.program_page.callKwargs(programs, options);
    post("translation", { html });
  },
};

self.onmessage = async ({ data }) => {
  try {
    await handlers[data.kind](data);
  } catch (error) {
    running = false;
    post("error", { said: `lc3jit: ${error.message.split("\n").filter(Boolean).slice(-1)[0]}\n` });
  }
};
