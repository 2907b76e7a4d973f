/**
 * The WebAssembly line scanner (src/review/text-scan.ts) against a plain Buffer.indexOf loop, on a
 * case's source files: bench/aggregate.bench.ts bundles this file as the hooks are bundled and runs it
 * in the case's project, the two modes in interleaved pairs. The files are read first, as the hook reads
 * them (a file of a megabyte or more into memory the module scans in place); then the line starts of
 * every file are found, and the CPU milliseconds of that alone are printed.
 *
 *   node line-scan.cjs wasm|plain tuned|untuned <file>…
 *
 * `plain` is the same function with its scanner turned away (lineStarts(bytes, Infinity): the loop a
 * node without WebAssembly runs). `tuned` switches TurboFan off first, as the hook does for a large round
 * before it reads the sources (src/shell/jit.ts); the 50 MB case's round is tuned only after its file is
 * indexed.
 */
import fs from 'node:fs';
import { IN_PLACE_FROM, lineStarts, scannableBuffer } from '../src/review/text-scan';
import { allowJitTuning, tuneForLargeRound } from '../src/shell/jit';

const [mode, tuned, ...files] = process.argv.slice(2);
if (mode !== 'wasm' && mode !== 'plain') throw new Error(`mode: wasm or plain, not ${mode}`);
if (tuned === 'tuned') {
  allowJitTuning();
  tuneForLargeRound();
}
const buffers = files.map((file) => {
  const size = fs.statSync(file).size;
  const bytes = (mode === 'wasm' && size >= IN_PLACE_FROM ? scannableBuffer(size) : null) ?? Buffer.allocUnsafe(size);
  const fd = fs.openSync(file, 'r');
  for (let at = 0; at < size; ) at += fs.readSync(fd, bytes, at, size - at, at);
  fs.closeSync(fd);
  return bytes;
});
const start = process.cpuUsage();
let lines = 0;
for (const bytes of buffers) lines += lineStarts(bytes, mode === 'wasm' ? undefined : Infinity).count;
const used = process.cpuUsage(start);
process.stdout.write(`${(used.user + used.system) / 1000} ${lines}\n`);
