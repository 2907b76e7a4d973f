/**
 * `node dist/launch.cjs <hook>`: runs dist/<hook>.cjs from V8's code cache. hooks/hooks.json starts
 * every hook this way.
 *
 * A hook lives for one call, so compiling its bundle is a large share of its cost. The first call
 * keeps the compiled code in the plugin's data folder (CLAUDE_PLUGIN_DATA, which the host gives each
 * hook); later calls load it instead of compiling again. The cache is only an optimisation: anything
 * wrong with it (no data folder, an unreadable, stale or foreign file, a full disk) runs the bundle
 * as a plain script, and V8 itself refuses a cache made by another node or for another source.
 *
 * Imports nothing of the plugin: it must stay small, since it is itself compiled on every call.
 */
import fs from 'node:fs';
import { Module, createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

const name = process.argv[2] ?? '';
if (!/^on-[a-z-]+$/.test(name)) {
  process.stderr.write(`minions: launch.cjs needs a hook name, not "${name}"\n`);
  process.exit(0);
}
// V8 refuses a cache made under other flags. The Bash gate's shell parser wants --liftoff-only (it
// compiles WebAssembly): hooks.json gives that gate the flag on node's command line, so its cache is made
// and used under the same flags, and no node:v8 is loaded to set it (node:v8 loads node's streams, a few
// percent of a node start). Only that gate: under a flag node's own modules lose their built-in code
// cache too (node:child_process then costs about 3× as much to load).
// hooks.json starts node with NODE_EXTRA_CA_CERTS emptied: node parses that bundle of certificates as it
// starts (about 30 ms for a system's whole bundle, more than the rest of a node start), and no hook opens a
// TLS connection. The user's value, kept in MINIONS_NODE_EXTRA_CA_CERTS, goes back into the environment
// for what a hook starts: the project's checks, git.
const extraCa = process.env.MINIONS_NODE_EXTRA_CA_CERTS;
if (extraCa !== undefined) {
  if (extraCa) process.env.NODE_EXTRA_CA_CERTS = extraCa;
  else delete process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.MINIONS_NODE_EXTRA_CA_CERTS;
}
const file = path.join(__dirname, `${name}.cjs`);
const source = fs.readFileSync(file, 'utf8');
const stat = fs.statSync(file);

/** One cache file per bundle version and node build; an old one is removed when its successor is written. */
const dir = process.env.CLAUDE_PLUGIN_DATA ? path.join(process.env.CLAUDE_PLUGIN_DATA, 'code-cache') : null;
const prefix = `${name}-`;
const cacheFile = dir && path.join(dir, `${prefix}${stat.size}-${Math.round(stat.mtimeMs)}-${process.version}-${process.arch}.bin`);

let cached: Buffer | undefined;
if (cacheFile) {
  try {
    cached = fs.readFileSync(cacheFile);
  } catch {
    // not cached yet
  }
}
const script = new vm.Script(Module.wrap(source), { filename: file, cachedData: cached });
const hit = cached !== undefined && !script.cachedDataRejected;
if (process.env.MINIONS_DEBUG) process.stderr.write(`minions ${name}: code cache ${hit ? 'hit' : cached ? 'rejected' : 'miss'}\n`);
// Written at exit, after the hook has answered, so that it holds the functions this call compiled.
if (cacheFile && !hit) process.once('exit', () => writeCache(cacheFile, script));

const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
const bundle = new Module(file);
bundle.filename = file;
run.call(bundle.exports, bundle.exports, createRequire(file), bundle, file, path.dirname(file));

function writeCache(target: string, compiled: vm.Script): void {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const tmp = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, compiled.createCachedData(), { mode: 0o600 });
    fs.renameSync(tmp, target);
    for (const old of fs.readdirSync(path.dirname(target))) {
      if (old.startsWith(prefix) && old !== path.basename(target)) fs.rmSync(path.join(path.dirname(target), old), { force: true });
    }
  } catch {
    // a cache that cannot be written is only a slower next start
  }
}
