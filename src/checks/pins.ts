/**
 * Pins: files outside the tree snapshot that can change what the loop's git commands or the project's
 * checks do, fingerprinted when the loop starts and compared at each phase end. Pure: the shell
 * (shell/pins.ts) reads the files and the package.json scripts; this decides which names a check can
 * execute, and what changed between two sets of fingerprints.
 *
 * Two sets are pinned. `gitDir`: the repository's configuration and the programs git runs (shell/pins.ts
 * lists them). A change there ends the loop STOPPED. `checks`: the files a check command resolves to that
 * the snapshot does not see (ignored, untracked-and-ignored, or outside the project). A change there
 * blocks DONE: a check that passes by running other code than at the start proves nothing.
 */

/** A pinned file's fingerprint (`sha256:<hex>`, `link:<target>`, `dir:<sha256 of its listing>`), or null when it was absent. */
export type Fingerprint = string | null;
export type Pins = Record<string, Fingerprint>;

export interface PinChange {
  /** As the user reads it: project-relative inside the project, `~/…` in the home folder, else absolute. */
  file: string;
  problem: 'changed' | 'added' | 'deleted';
}

/** What the hooks' record keeps of the pins (shell/record.ts). */
export interface PinRecord {
  gitDir: Pins;
  checks: Pins;
}

/** Every name whose fingerprint differs, sorted; a name only in `now` is added, only in `before` (or null now) deleted. */
export function pinChanges(before: Pins, now: Pins): PinChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort();
  return names.flatMap((file): PinChange[] => {
    const was = Object.hasOwn(before, file) ? before[file]! : null;
    const is = Object.hasOwn(now, file) ? now[file]! : null;
    if (was === is) return [];
    if (was === null) return [{ file, problem: 'added' }];
    if (is === null) return [{ file, problem: 'deleted' }];
    return [{ file, problem: 'changed' }];
  });
}

/** What a check command can execute, by kind: programs looked up on npm's PATH (node_modules/.bin) and paths as written. */
export interface CheckNames {
  /** Names a package manager's script runs from node_modules/.bin (also tried for a bare command). */
  bins: string[];
  /** Paths the command names (relative to the project, or absolute), as written. */
  files: string[];
}

const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const RUNNERS = new Set(['npx', 'bunx', 'pnpx']);
/** Words that run the next word as the command. */
const PREFIXES = new Set(['env', 'exec', 'command', 'time', 'nice', 'nohup', 'xvfb-run']);
/** npm's own words for its lifecycle scripts. */
const SCRIPT_ALIASES: Record<string, string> = { t: 'test', tst: 'test', test: 'test', start: 'start', stop: 'stop', restart: 'restart' };
const MAX_DEPTH = 4;

/**
 * The names a check command can execute: for each simple command (split at `;`, `&&`, `||`, `|`, `&` and
 * newlines), its program (a bare name is tried in node_modules/.bin, a path is taken as a file), every
 * further word that looks like a path (a script the program runs), and, for `npm test`, `npm run X`,
 * `yarn X`, `pnpm X`, `bun run X`, the scripts X, preX and postX of package.json, read the same way
 * (4 levels deep). `npx X` and `pnpm exec X` name X as a bin. Quotes are taken off; what needs a real
 * shell to expand ($VAR, $(…), globs) is left out.
 */
export function checkNames(command: string, scripts: Readonly<Record<string, string>>): CheckNames {
  const bins = new Set<string>();
  const files = new Set<string>();
  const seen = new Set<string>();
  const visit = (text: string, depth: number): void => {
    for (const words of simpleCommands(text)) {
      let i = 0;
      while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || PREFIXES.has(words[i]!))) i++;
      const program = words[i];
      if (program === undefined) continue;
      const rest = words.slice(i + 1);
      if (program.includes('/')) files.add(program);
      else bins.add(program);
      const base = program.split('/').pop()!;
      if (PACKAGE_MANAGERS.has(base)) {
        const sub = rest.find((w) => !w.startsWith('-'));
        if (sub === undefined) continue;
        const after = rest.slice(rest.indexOf(sub) + 1).filter((w) => !w.startsWith('-'));
        if (sub === 'exec' || sub === 'dlx' || sub === 'x') {
          if (after[0] !== undefined) bins.add(after[0]);
          continue;
        }
        const script = sub === 'run' || sub === 'run-script' ? after[0] : (SCRIPT_ALIASES[sub] ?? (base === 'npm' ? undefined : sub));
        if (script === undefined || depth >= MAX_DEPTH) continue;
        files.add('package.json');
        for (const name of [`pre${script}`, script, `post${script}`]) {
          const body = scripts[name];
          if (body === undefined || seen.has(name)) continue;
          seen.add(name);
          visit(body, depth + 1);
        }
        continue;
      }
      if (RUNNERS.has(base)) {
        const bin = rest.find((w) => !w.startsWith('-'));
        if (bin !== undefined) bins.add(bin);
        continue;
      }
      for (const word of rest) if (looksLikePath(word)) files.add(word.replace(/^--?[\w-]+=/, ''));
    }
  };
  visit(command, 0);
  return { bins: [...bins].filter(isBinName).sort(), files: [...files].filter((f) => f !== '' && !/[$`*?[\]{}~]/.test(f)).sort() };
}

/** A word that names a file: it has a slash or a file extension, and is no option (`--config=x.js` names x.js). */
function looksLikePath(word: string): boolean {
  const value = word.replace(/^--?[\w-]+=/, '');
  if (value.startsWith('-') || value === '') return false;
  return value.includes('/') || /^[\w.-]+\.[A-Za-z][\w]{0,9}$/.test(value);
}

/** A name node_modules/.bin can hold: one path segment, no shell syntax. */
const isBinName = (name: string): boolean => /^[\w@.+-][\w@.+-]*$/.test(name) && name !== '.' && name !== '..';

/**
 * A shell text's simple commands as their words, quotes removed. Not a shell: enough for the commands
 * people configure as checks (`npm test`, `make check`, `vitest run && eslint .`).
 */
export function simpleCommands(text: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word += text.slice(i + 1, end === -1 ? text.length : end);
      inWord = true;
      i = end === -1 ? text.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        word += text[j];
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      if (text[i + 1] !== '\n') word += text[i + 1];
      inWord = true;
      i++;
    } else if (c === '#' && !inWord) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end - 1;
    } else if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      endCommand();
    } else if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** Two readings' changes as one list: each file once (its first reading's problem), sorted. */
export function mergeChanges(a: readonly PinChange[], b: readonly PinChange[]): PinChange[] {
  const byFile = new Map<string, PinChange>();
  for (const change of [...a, ...b]) if (!byFile.has(change.file)) byFile.set(change.file, change);
  return [...byFile.values()].sort((x, y) => (x.file < y.file ? -1 : x.file > y.file ? 1 : 0));
}
