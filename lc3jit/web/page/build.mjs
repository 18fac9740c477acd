// Bundles the page (src/) with its pinned packages into ../static, the files that ship in
// the wheel beside the page itself (../static/index.html, written by hand), and copies the
// examples the page offers: `npm ci && npm run build`
// (`node build.mjs DIR` writes into DIR instead: the tests compare it with static/).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const here = new URL(".", import.meta.url).pathname;
const out = process.argv[2] ?? `${here}../static`;
const examples = ["hello.asm", "hello.obj", "hello.sym", "2048.obj", "rogue.obj", "fib.asm", "echo.asm", "sieve.asm", "LICENSE-games.md"];

const common = { bundle: true, minify: true, legalComments: "linked", target: "es2022", logLevel: "warning" };
await build({ ...common, entryPoints: { app: `${here}src/main.js` }, outdir: out, format: "iife" });
await build({ ...common, entryPoints: { worker: `${here}src/worker.js` }, outdir: out, format: "esm" });
mkdirSync(`${out}/examples`, { recursive: true });
for (const name of examples) copyFileSync(`${here}../../../examples/${name}`, `${out}/examples/${name}`);
