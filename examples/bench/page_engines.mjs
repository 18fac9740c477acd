// The web page's engines in Pyodide under node: the page's own machine (lc3jit.web.machine)
// run in slices as the page's worker runs it, with no browser sharing the cores, so that two
// checkouts can be compared run for run. Pyodide comes from the page's npm packages
// (`npm ci --prefix lc3jit/web/page`); the checkout's sources are mounted as they are.
//
//   node examples/bench/page_engines.mjs [CHECKOUT] [PROGRAM,...] [ROUNDS]
//
// For each bench program: one run of regions to warm up, then ROUNDS (default 5) runs of
// regions and two of the interpreter, each a new machine; prints the median regions run
// and the faster interpreter run in wall ms (translation included, as the page counts
// it), and their ratio.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repository = resolve(here, "..", "..");
const checkout = resolve(process.argv[2] ?? repository);
const programs = (process.argv[3] ?? "arith,fib,sieve,sort,strings").split(",");
const rounds = Number(process.argv[4] ?? 5);

const { loadPyodide } = await import(resolve(repository, "lc3jit/web/page/node_modules/pyodide/pyodide.mjs"));
const pyodide = await loadPyodide();
const mount = (from, at) => {
    pyodide.FS.mkdirTree(at);
    pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: from }, at);
};
mount(checkout, "/checkout");
mount(resolve(checkout, "runtime"), "/packages/lc3jit_runtime"); // installed under this name
pyodide.globals.set("programs", pyodide.toPy(programs));
pyodide.globals.set("rounds", rounds);
console.log(
    pyodide.runPython(`
import statistics, sys, time
sys.path[:0] = ["/checkout", "/packages"]
from lc3jit.web.machine import PageMachine

def run(name, engine):
    machine = PageMachine([f"/checkout/examples/bench/{name}.asm"], engine=engine)
    began = time.perf_counter()
    while machine.run(100_000).get("state") == "running":
        pass
    return (time.perf_counter() - began) * 1000

lines = []
for name in programs:
    run(name, "regions")
    regions = statistics.median(run(name, "regions") for _ in range(rounds))
    interp = min(run(name, "interp") for _ in range(2))
    lines.append(f"{name:<8} regions {regions:6.0f} ms  interp {interp:6.0f} ms  x interp {interp / regions:.2f}")
"\\n".join(lines)
`),
);
