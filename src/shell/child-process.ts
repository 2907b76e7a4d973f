/**
 * node:child_process's execFileSync and spawn, with the module loaded on the first command rather than at start:
 * loading it costs a hook about 4 % of a node start, and most hook calls run no command.
 */
import { createRequire } from 'node:module';

type ChildProcess = typeof import('node:child_process');
let loaded: ChildProcess | undefined;

// A builtin resolves from anywhere: '/' serves as the base in the bundles (CommonJS) and in the tests (ES modules).
const childProcess = (): ChildProcess => (loaded ??= createRequire('/')('node:child_process') as ChildProcess);

export const spawn = ((...args: unknown[]) => (childProcess().spawn as (...a: unknown[]) => unknown)(...args)) as ChildProcess['spawn'];
export const execFileSync = ((...args: unknown[]) => (childProcess().execFileSync as (...a: unknown[]) => unknown)(...args)) as ChildProcess['execFileSync'];
