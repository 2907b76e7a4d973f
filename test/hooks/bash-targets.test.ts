/**
 * The Bash gate's write targets, proved by running them: for spellings that reach .git/, .agents/ or the
 * project through a descriptor (/dev/fd/N, /proc/self/fd/N, /dev/stdin, /proc/self/cwd,
 * /proc/thread-self …) or a link followed by `..`, and for the tricks that rebind what a command name
 * runs, the built bundle decides; whatever it allows is then run with real bash in a copy of the repo,
 * and must leave .git/ and .agents/ (and, for a reviewer, every project file) as they were.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Loop, denyReason, projectTestdir } from '../helpers/loop';
import { FIXER, REVIEWERS, agentType, cleanReview, reviewWithIssues } from '../helpers/reviews';
import { cloneTestdir, removeTestdirs, type TestDir } from '../helpers/testdir';

afterAll(removeTestdirs);

const WITNESS = agentType('witness');
let r1: TestDir;
let r2: TestDir;
let outside: string;

beforeAll(async () => {
  const loop = new Loop(projectTestdir());
  await loop.start('--max-iterations 3 targets');
  await loop.dispatchReviewers();
  r1 = cloneTestdir(loop.dir);
  for (const r of REVIEWERS) loop.writeReview(1, r, r === 'critic' ? reviewWithIssues(r) : cleanReview(r));
  await loop.reviewersStop();
  await loop.dispatch(FIXER);
  expect(loop.state().currentPhase).toBe('R2');
  r2 = loop.dir;
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minions-outside-')));
  // Links in the project: into the git dir, into .agents/, and out of the project.
  for (const dir of [r1, r2]) {
    fs.symlinkSync('.git/hooks', dir.abs('hl'));
    fs.symlinkSync('.agents/tmp', dir.abs('al'));
    fs.symlinkSync(path.join(dir.root, '.git'), dir.abs('src/gl'));
    fs.symlinkSync(outside, dir.abs('ol'));
  }
});
afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));

/** Every file below `dir` (links not followed) with its content; a link as its target. */
function snapshot(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      const rel = path.relative(dir, abs);
      if (skip(rel)) continue;
      if (e.isSymbolicLink()) out.set(rel, `-> ${fs.readlinkSync(abs)}`);
      else if (e.isDirectory()) {
        out.set(`${rel}/`, '');
        walk(abs);
      } else out.set(rel, fs.readFileSync(abs).toString('base64'));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** Decides `command` for `who`; when allowed, runs it in a copy of `base` and returns what it changed there. */
async function decideAndRun(base: TestDir, who: string, command: string, reviewer: boolean): Promise<{ allowed: boolean; reason?: string; changed: string[] }> {
  const dir = cloneTestdir(base);
  const r = await new Loop(dir).gateBash(command, who);
  expect(r.code).toBe(0);
  const reason = denyReason(r);
  if (reason !== undefined) return { allowed: false, reason, changed: [] };
  const guarded = (): Map<string, string> => {
    const all = new Map<string, string>();
    for (const [k, v] of snapshot(dir.abs('.git'))) all.set(`.git/${k}`, v);
    for (const [k, v] of snapshot(dir.abs('.agents'))) all.set(`.agents/${k}`, v);
    if (reviewer) for (const [k, v] of snapshot(dir.root, (rel) => rel === '.git' || rel === '.agents')) all.set(k, v);
    return all;
  };
  const before = guarded();
  spawnSync('bash', ['-c', command], { cwd: dir.root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: os.tmpdir() } });
  const after = guarded();
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
  return { allowed: true, changed };
}

const DIRS = ['.git', '.agents', '.agents/tmp', 'src', 'hl', 'al', 'src/gl'];
const FD_PREFIXES = (fd: number): string[] => [`/dev/fd/${fd}`, `/proc/self/fd/${fd}`, `/proc/thread-self/fd/${fd}`, `//dev//fd/./${fd}`, `/proc/self/attr/../fd/${fd}`, ...(fd === 0 ? ['/dev/stdin'] : [])];
const RESTS = ['config', 'x', '../y', 'tmp/state.json', 'hooks/../config'];

/** Writes through a descriptor the command opens on a directory, in every order and writer. */
function descriptorSpellings(): string[] {
  const out: string[] = [];
  let k = 0;
  for (const fd of [0, 3, 7]) {
    for (const prefix of FD_PREFIXES(fd)) {
      for (const dir of DIRS) {
        const rest = RESTS[k++ % RESTS.length]!;
        const target = `${prefix}/${rest}`;
        const forms = [`echo pwned ${fd}<${dir} >${target}`, `cp /dev/null ${target} ${fd}<${dir}`, `touch ${target} ${fd}<${dir}`, `rm -f ${target} ${fd}<${dir}`, `{ echo pwned > ${target}; } ${fd}<${dir}`, `exec ${fd}<${dir}; echo pwned > ${target}`];
        out.push(forms[k % forms.length]!);
      }
    }
  }
  return out;
}

const LINK_SPELLINGS = [
  'echo pwned > hl/../config',
  'cp /dev/null hl/../config',
  'rm -f hl/../config',
  'echo pwned > src/gl/hooks/../config',
  'echo pwned > src/../hl/../config',
  'touch al/../state.json',
  'echo pwned > al/../x',
  'cd hl && echo pwned > ../config',
  'cd -P hl/.. && echo pwned > config',
  'echo pwned > /proc/self/cwd/.git/config',
  'cd src && echo pwned > /proc/self/cwd/../.git/config',
  'cd src && echo pwned > /proc/thread-self/cwd/../.agents/x',
  'echo pwned > /proc/self/root/proc/self/cwd/.git/config',
  'echo pwned 1<.git/config >/dev/stdout',
  'bash -c "echo pwned > /dev/stdout" 1<.git/config',
  'echo pwned > ol/../x',
];

/** Tricks that make a command name run another program, then that name on a protected file. */
const REBINDINGS = [
  'BASH_CMDS[cat]=/bin/rm; cat .git/config',
  'BASH_CMDS=([cat]=/bin/rm); cat .git/config',
  "declare 'BASH_CMDS[cat]=/bin/rm'; cat .git/config",
  'n=BASH_CMDS; printf -v "${n}[cat]" %s /bin/rm; cat .git/config',
  'read -r "$(echo BASH_CMDS)[cat]" <<< /bin/rm; cat .git/config',
  "shopt -s expand_aliases; BASH_ALIASES[cat]='rm -f'\ncat .git/config",
  "shopt -s expand_aliases\nalias cat='rm -f'\ncat .git/config",
  "env 'BASH_FUNC_cat%%=() { rm -f .git/config; }' bash -c 'cat README.md'",
  'hash -p /bin/rm cat; cat .git/config',
  'mkdir -p /tmp/mb && ln -sf /bin/rm /tmp/mb/cat; PATH=/tmp/mb:$PATH; hash -r; BASH_CMDS[cat]=/tmp/mb/cat cat .git/config',
];

/** Must stay allowed for a reviewer: reading, and output that goes nowhere in the project. */
const ALLOWED = ['diff <(git show HEAD:src/a.ts) src/a.ts', 'ls /dev/fd/', 'cat /proc/cpuinfo', 'echo x >/dev/null', 'ls 2>&1', 'ls nothing 2>/dev/null', 'echo hi >/dev/stdout', 'echo hi | tee /dev/stderr', 'git status', 'git diff', 'git log --oneline'];

describe.concurrent('the witness (R1): what the gate allows changes nothing when bash runs it', () => {
  it.each([...descriptorSpellings(), ...LINK_SPELLINGS, ...REBINDINGS])('%s', async (command) => {
    const r = await decideAndRun(r1, WITNESS, command, true);
    expect(r.changed, r.allowed ? `allowed, and bash changed ${r.changed.join(', ')}` : '').toEqual([]);
  });
  it.each(ALLOWED)('allows %s', async (command) => {
    const r = await decideAndRun(r1, WITNESS, command, true);
    expect(r.reason).toBeUndefined();
    // git status refreshes the index's stat data: git's own write, not the command's target.
    expect(r.changed.filter((f) => f !== '.git/index')).toEqual([]);
  });
});

describe.concurrent('the fixer (R2): what the gate allows leaves .git/ and .agents/ alone', () => {
  it.each([...descriptorSpellings(), ...LINK_SPELLINGS, ...REBINDINGS])('%s', async (command) => {
    const r = await decideAndRun(r2, FIXER, command, false);
    expect(r.changed, r.allowed ? `allowed, and bash changed ${r.changed.join(', ')}` : '').toEqual([]);
  });
});

describe.concurrent('the refusals say what is refused and what to do instead', () => {
  it.each([
    ['exec 3<.git; echo x > /dev/fd/3/config', /cannot tell where `\/dev\/fd\/3\/config` leads \(descriptor 3 is not one the command opens itself\), so the write is refused\. Name the file by its own path/],
    ['echo x 3<.git >/dev/fd/3/config', /may not write .*\/\.git\/config: the git directory/],
    ['echo x > hl/../config', /may not write .*\/\.git\/config: the git directory/],
    ['BASH_CMDS[cat]=/bin/rm; cat .git/config', /changes what a command name runs .*, so the gate cannot check it while the review loop runs\. Run the commands themselves, spelled out: call each program by its own name or path/],
    ["gawk -i inplace '{print}' src/a.ts", /is read-only; shell commands that write or delete project files are refused/],
    ["gawk -i /usr/share/awk/inplace.awk '{print}' src/a.ts", /is read-only; shell commands that write or delete project files are refused/],
  ] as [string, RegExp][])('%s', async (command, reason) => {
    const r = await new Loop(r1).gateBash(command, WITNESS);
    expect(denyReason(r)).toMatch(reason);
  });
});
