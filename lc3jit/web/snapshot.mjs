// The web page's memory snapshot, made by `lc3jit web build` when the site has its own
// Pyodide and node is there: Pyodide started under Node, lc3jit's sources unpacked where
// the page's worker unpacks them (SITE, as in page/src/worker.js), lc3jit.web.machine
// imported and the translator warmed up, then Pyodide's memory written out after its
// length (4 bytes, little-endian), gzipped (page/src/worker.js reads it).
// The worker starts from it instead of starting CPython and importing lc3jit again.
// `node snapshot.mjs PYODIDE_FOLDER SOURCES_ZIP OUT`
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const SITE = "/lc3jit-site";
const [folder, sources, out] = process.argv.slice(2);
const indexURL = `${resolve(folder)}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true });
pyodide.unpackArchive(new Uint8Array(readFileSync(sources)), "zip", { extractDir: SITE });
pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(SITE)})`);
pyodide.pyimport("lc3jit.web.machine").warm_up();
const memory = pyodide.makeMemorySnapshot();
const length = Buffer.alloc(4);
length.writeUInt32LE(memory.length);
writeFileSync(out, gzipSync(Buffer.concat([length, memory]), { level: 6 }));
