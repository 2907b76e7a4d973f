/**
 * node:child_process's execFileSync and spawn, with the module loaded on the first command rather than at start:
 * loading it costs a hook about 4 % of a node start, and most hook calls run no command.
 */
type ChildProcess = typeof import('node:child_process');
let loaded: ChildProcess | undefined;

// getBuiltinModule (Node ≥ 20.16) works alike in the bundles (CommonJS) and the tests (ES modules), without node:module.
const childProcess = (): ChildProcess => (loaded ??= process.getBuiltinModule('node:child_process'));

export const spawn = ((...args: unknown[]) => (childProcess().spawn as (...a: unknown[]) => unknown)(...args)) as ChildProcess['spawn'];
export const execFileSync = ((...args: unknown[]) => (childProcess().execFileSync as (...a: unknown[]) => unknown)(...args)) as ChildProcess['execFileSync'];
