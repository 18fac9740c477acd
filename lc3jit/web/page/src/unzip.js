// lc3jit's sources as the site ships them (lc3jit.zip), unpacked in the worker without
// Python: the zip's central directory read here, each file inflated by the browser
// (DecompressionStream "deflate-raw") or taken as stored. Python's own unpacking costs
// the page a few hundred milliseconds more before it is ready.

const END = 0x06054b50; // the end of central directory record's signature
const ENTRY = 0x02014b50; // a central directory entry's
const LOCAL = 0x04034b50; // a local file header's
const STORED = 0;
const DEFLATED = 8;

async function inflate(data) {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// The files of a zip archive (ArrayBuffer): [[name, Uint8Array]], directories left out.
export async function unzip(buffer) {
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  const broken = (why) => new Error(`lc3jit.zip: not a zip archive (${why})`);
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== END) end--;
  if (end < 0) throw broken("no central directory");
  const names = new TextDecoder();
  const files = [];
  for (let i = 0, at = view.getUint32(end + 16, true); i < view.getUint16(end + 10, true); i++) {
    if (at + 46 > end || view.getUint32(at, true) !== ENTRY) throw broken("a bad directory entry");
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (local + 30 > bytes.length || view.getUint32(local, true) !== LOCAL) throw broken(`no ${name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + size);
    if (name.endsWith("/")) continue;
    if (method !== STORED && method !== DEFLATED) throw broken(`${name} compressed by method ${method}`);
    files.push(method === STORED ? [name, data] : inflate(data).then((inflated) => [name, inflated]));
  }
  return Promise.all(files);
}
