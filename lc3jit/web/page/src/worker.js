// The machine's thread: Pyodide, lc3jit, and the program the page runs. The page never
// waits for it: a run goes in slices of instructions, and between two slices the worker
// reads the page's messages (Stop, keys typed), so Stop takes effect at the next slice.
// Every reply is a report of lc3jit.web.machine, posted as it is.

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

async function start({ pyodideUrl }) {
  const began = performance.now();
  const sources = fetch(new URL("lc3jit.zip", self.location)).then((r) => r.arrayBuffer());
  const { loadPyodide } = await import(pyodideUrl + "pyodide.mjs");
  pyodide = await loadPyodide({ indexURL: pyodideUrl });
  const python = performance.now();
  pyodide.unpackArchive(await sources, "zip", { extractDir: SITE });
  pyodide.FS.mkdirTree(PROGRAMS);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(SITE)})`);
  web = pyodide.pyimport("lc3jit.web.machine");
  const seconds = (performance.now() - began) / 1000;
  post("ready", { seconds, python: (python - began) / 1000, version: pyodide.version });
  const warming = performance.now();
  web.warm_up();
  post("warm", { seconds: (performance.now() - warming) / 1000 });
}

function load({ files, options }) {
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
  post("loaded", toJs(machine.report()));
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
