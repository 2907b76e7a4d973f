/**
 * The Bash gate against a hostile model: generated spellings of the same write (quoting, wrappers,
 * redirection forms, compound commands, nested shells) are all refused; the same spellings of a
 * read-only command all pass, so the gate is not refusing everything.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { plainScript, type SyntaxNode } from '../../src/bash/syntax';
import { HOME, ROOT, analyse, analyseParsed, decide, outcomeOf, parse } from './bash';
import { stateBuilder } from './builders';
import { paced } from '../helpers/pace';

const R1 = stateBuilder().build();
const R2 = stateBuilder().inR2().build();
const ROLES: [string, string | null, typeof R1][] = [
  ['the witness', 'minions:witness', R1],
  ['the fixer', 'minions:review-fixer', R2],
  ['the orchestrator', null, R1],
  ['a general-purpose agent', 'general-purpose', R2],
];

const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const dq = (s: string): string => `"${s.replace(/(["\\$`])/g, '\\$1')}"`;

/** Ways to spell a command's name that bash runs as the same command. */
const nameSpelling = (name: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    name,
    `\\${name}`,
    sq(name),
    dq(name),
    `${name[0]}''${name.slice(1)}`,
    `${name[0]}""${name.slice(1)}`,
    `/usr/bin/${name}`,
    `/bin/${name}`,
    `$'${name}'`,
    name.toUpperCase(),
  );

/** Commands that run the command they are given. */
const wrapper = fc.constantFrom('command', 'env', 'env -i', 'env FOO=1', 'nohup', 'timeout 5', 'timeout -s KILL 10', 'sudo', 'sudo -u root', 'nice -n 1', 'time', 'stdbuf -o0', 'builtin', 'exec', 'busybox');
// An assignment prefix counts only before the first word (after it, `FOO=1` would be the command name).
const wrappers = fc.tuple(fc.boolean(), fc.array(wrapper, { maxLength: 3 })).map(([assign, ws]) => [...(assign ? ['FOO=1'] : []), ...ws].join(' '));

/** Ways to name the same file, relative to the project root. */
const pathSpelling = (rel: string): fc.Arbitrary<string> => {
  const [first, ...rest] = rel.split('/');
  const tail = rest.join('/');
  return fc.constantFrom(
    rel,
    `./${rel}`,
    sq(rel),
    dq(rel),
    `${first!.slice(0, 3)}''${first!.slice(3)}/${tail}`,
    `\\${rel}`,
    `src/../${rel}`,
    `${first}//${rest.slice(0, -1).join('/')}/./${rest[rest.length - 1]}`,
    `${ROOT}/${rel}`,
    `~/../..${ROOT}/${rel}`,
    `${first}/${rest.slice(0, -1).join('/')}/${rest[rest.length - 1]!.replace(/^(.)/, '[$1]')}`,
    `${first}/${rest.slice(0, -1).join('/')}/{${rest[rest.length - 1]},nothing}`,
    `$PWD/${rel}`,
    `"$(pwd)"/${rel}`,
  );
};

/** Ways to write (or delete) a file. */
const writeForm = (p: string): fc.Arbitrary<[string, string]> =>
  fc.constantFrom<[string, string]>(
    ['echo', `0 > ${p}`],
    ['echo', `0 1>${p}`],
    ['echo', `0 >| ${p}`],
    ['echo', `0 &> ${p}`],
    ['echo', `0 >> ${p}`],
    ['echo', `0 2>/dev/null 1>${p}`],
    ['printf', `0 >&${p}`],
    ['tee', p],
    ['rm', `-f ${p}`],
    ['rm', `-rf -- ${p}`],
    ['cp', `/tmp/forged ${p}`],
    ['mv', `/tmp/forged ${p}`],
    ['sed', `-i s/R2/DONE/ ${p}`],
    ['sed', `s/R2/DONE/ -i ${p}`],
    ['sed', `--in-place=.bak -e s/R2/DONE/ ${p}`],
    ['perl', `-pi -e s/R2/DONE/ ${p}`],
    ['perl', `-pe s/R2/DONE/ -i ${p}`],
    ['truncate', `-s 0 ${p}`],
    ['touch', p],
    ['dd', `if=/dev/zero of=${p}`],
    ['ln', `-sf /tmp/forged ${p}`],
    ['find', `${p} -delete`],
    ['chmod', `000 ${p}`],
  );

/** Where a command can stand and still run. */
const context = (inner: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    inner,
    `   ${inner}`,
    `true && ${inner}`,
    `false || ${inner}`,
    `(${inner})`,
    `{ ${inner}; }`,
    `if true; then ${inner}; fi`,
    `for i in 1; do ${inner}; done`,
    `while true; do ${inner}; break; done`,
    `case x in *) ${inner};; esac`,
    `echo $(${inner})`,
    `echo "$(${inner})"`,
    `ls | ${inner}`,
    `f() { ${inner}; }; f`,
    `bash -c ${sq(inner)}`,
    `sh -c ${dq(inner)}`,
    `bash -lc ${sq(inner)}`,
    `eval ${sq(inner)}`,
    `eval ${dq(inner)}`,
    `bash -c ${sq(`sh -c ${sq(inner)}`)}`,
    `bash <<'EOF'\n${inner}\nEOF`,
    `xargs -0 sh -c ${sq(inner)} _`,
    `find . -maxdepth 0 -exec sh -c ${sq(inner)} \\;`,
    `trap ${sq(inner)} EXIT`,
    `echo start\n${inner}\necho end`,
  );

/** A full command: context(wrappers + name + arguments). */
const command = (rel: string): fc.Arbitrary<string> =>
  fc
    .tuple(wrappers, pathSpelling(rel).chain(writeForm))
    // `of=x/[s]tate.json` is one word that globs as a whole: it matches nothing, and dd writes that literal name.
    .filter(([, [name, args]]) => name !== 'dd' || !/of=\S*[[{]/.test(args))
    .chain(([w, [name, args]]) => nameSpelling(name).map((n) => `${w ? `${w} ` : ''}${n} ${args}`))
    .chain(context);

/** The same writes after a cd into the directory. */
const viaCd = fc.constantFrom(['.agents/tmp', 'state.json'], ['.agents', 'tmp/state.json'], ['src', '../.agents/tmp/state.json'], ['/tmp', `${ROOT}/.agents/tmp/state.json`]).chain(([dir, rel]) =>
  writeForm(rel!).map(([name, args]) => `cd ${dir} && ${name} ${args}`),
);

const RUNS = { numRuns: Number(process.env.FC_RUNS ?? 600) };
// Each run parses a command or two: generous, so a loaded machine never fails a property on time.
vi.setConfig({ testTimeout: paced(600_000) });

describe('generated spellings of one write to the hooks\' state file', () => {
  it.each(ROLES)('are all refused for %s', (_, who, state) => {
    fc.assert(
      fc.property(fc.oneof(command('.agents/tmp/state.json'), viaCd), (cmd) => {
        const d = decide(state, who, cmd);
        expect(d.allow, cmd).toBe(false);
      }),
      RUNS,
    );
  });

  it('are refused as the hooks\' file, not by accident, whenever the path is spelled out', () => {
    fc.assert(
      fc.property(command('.agents/tmp/state.json'), (cmd) => {
        const outcome = outcomeOf(decide(R2, 'minions:review-fixer', cmd));
        // A computed path ($PWD, $(pwd)) is refused as dynamic; with braces, cp and mv may write the other
        // word instead (.agents/tmp/nothing); everything else is recognised as the state file.
        const allowed = cmd.includes('$PWD') || cmd.includes('$(pwd)') ? ['dynamic', 'hooks'] : cmd.includes(',nothing}') ? ['hooks', 'agents'] : ['hooks'];
        expect(allowed, cmd).toContain(outcome);
      }),
      RUNS,
    );
  });
});

describe('generated spellings of the fixer writing its summary with the shell', () => {
  it('are all refused: .agents/ is written with the Write tool', () => {
    fc.assert(
      fc.property(command('.agents/tmp/phases/review-1/r2-fix-summary.md'), (cmd) => {
        expect(['agents', 'dynamic'], cmd).toContain(outcomeOf(decide(R2, 'minions:review-fixer', cmd)));
      }),
      RUNS,
    );
  });
});

describe('generated spellings of git stash', () => {
  const gitCommand = fc
    .tuple(
      wrappers,
      nameSpelling('git'),
      fc.constantFrom('', '-C .', '-C src', '--no-pager', '-c color.ui=never', '--git-dir=.git', '--git-dir .git --work-tree .', '-P'),
      fc.constantFrom('stash', 'stash push', 'stash pop', 'reset --hard', 'checkout -- src', 'checkout-index -a -f', 'apply --index p.diff', 'clean -fdx', 'commit -am x'),
    )
    .map(([w, g, opts, sub]) => [w, g, opts, sub].filter(Boolean).join(' '))
    .chain(context);
  const aliased = fc.constantFrom('stash', 'reset --hard', 'checkout .', '!rm -rf src').map((target) => `git -c ${sq(`alias.s=${target}`)} s`).chain(context);

  it.each(ROLES)('are all refused for %s', (_, who, state) => {
    fc.assert(
      fc.property(fc.oneof(gitCommand, aliased), (cmd) => {
        expect(outcomeOf(decide(state, who, cmd)), cmd).toBe('git');
      }),
      RUNS,
    );
  });
});

describe('the same spellings of read-only commands', () => {
  const readOnly = fc
    .tuple(
      wrappers,
      fc.constantFrom<[string, string]>(['cat', '.agents/tmp/state.json'], ['grep', '-n phase .agents/tmp/state.json'], ['ls', '-la .agents/tmp'], ['git', 'status'], ['git', 'diff HEAD'], ['git', 'log -p -3'], ['wc', '-l src/a.ts'], ['npm', 'test']),
    )
    .chain(([w, [name, args]]) => nameSpelling(name).map((n) => `${w ? `${w} ` : ''}${n} ${args}`))
    .chain((inner) => context(inner).filter((c) => !c.startsWith('trap') && !c.startsWith('ls |')))
    .map((c) => `${c} 2>/dev/null`);

  it.each(ROLES)('all pass for %s', (_, who, state) => {
    fc.assert(
      fc.property(readOnly, (cmd) => {
        expect(decide(state, who, cmd), cmd).toEqual({ allow: true });
      }),
      RUNS,
    );
  });
});

describe('the plain fast path', () => {
  it('reads a plain command exactly as the parser does', () => {
    const plainWord = fc.stringMatching(/^[A-Za-z0-9_./:=,+@%-]{1,10}$/);
    fc.assert(
      fc.property(fc.array(plainWord, { minLength: 1, maxLength: 6 }), fc.constantFrom(' ', '  ', '\t'), (words, sep) => {
        const cmd = words.join(sep);
        if (!plainScript(cmd)) return;
        const viaParser = analyseParsed(cmd);
        // Where the grammar fails on plain words that bash reads as words (`1%`), the plain reading is bash's.
        if (viaParser.some((e) => e.kind === 'unparseable')) return;
        expect(analyse(cmd), cmd).toEqual(viaParser);
      }),
      { numRuns: 2000 },
    );
  });

  /** The tree as the gate reads it: the grammar's `number` is a word to every rule, and the root's own text is never read. */
  const shape = (n: SyntaxNode): unknown => ({ type: n.type === 'number' ? 'word' : n.type, named: n.named, field: n.field, text: n.text, children: n.children.map(shape) });
  const sameAsParser = (cmd: string): void => {
    const plain = plainScript(cmd);
    if (!plain) return;
    const parsed = parse(cmd);
    // One simple command (no operator) is held to what the test above holds it to: where the grammar
    // fails on words bash reads as words (`1%`), or builds another tree for them (`a+=`), the plain
    // reading is bash's. Between operators the fast path keeps to what the grammar reads as bash does.
    if (!/[;&|]/.test(cmd)) {
      if (parsed.complete) expect(analyse(cmd), cmd).toEqual(analyseParsed(cmd));
      return;
    }
    expect(parsed.complete, cmd).toBe(true);
    expect(plain.root.children.map(shape), cmd).toEqual(parsed.root.children.map(shape));
    expect(analyse(cmd), cmd).toEqual(analyseParsed(cmd));
  };
  // Commands the gate judges differently (git history, the hooks' files, writes), and everyday ones.
  const listCommand = fc.oneof(
    fc.constantFrom(
      'git status', 'git stash', 'git stash pop', 'git reset --hard', 'git checkout -- src/a.ts', 'git commit -m x', 'git push', 'npm test',
      'rm -rf .agents/tmp/state.json', 'rm .agents/tmp/phases/review-1/r1-critic.json', 'cp src/a.ts .agents/tmp/state.json', 'mv a b',
      'touch src/new.ts', 'tee .agents/tmp/state.json', 'sed -i s/a/b/ src/a.ts', 'xargs rm', 'bash -c rm', 'sh', 'cat', 'ls -la src',
      'tail -20', 'head -5', 'grep -n x src/a.ts', 'wc -l', 'sort', 'cd src', 'cd ..', 'cd /tmp', 'eval rm', 'env rm a', 'sudo rm a', 'exec',
      'cat .git/config', 'rm -rf .git', 'chmod 000 .agents', 'ln -s a .agents/tmp/state.json', 'dd of=.agents/tmp/state.json',
    ),
    fc.array(fc.stringMatching(/^[A-Za-z0-9_./,:-]{1,10}$/), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' ')),
  );
  const blank = fc.constantFrom('', ' ', '  ', '\t');
  // The redirections the fast path reads, after a command's words.
  const redirected = fc
    .tuple(listCommand, fc.array(fc.constantFrom('2>&1', '>/dev/null', '2>/dev/null', '1>/dev/null', '1>&2', '>&2', '>&1'), { maxLength: 2 }))
    .map(([c, rs]) => [c, ...rs].join(' '));
  const listScript = fc
    .tuple(
      blank,
      redirected,
      fc.array(fc.tuple(blank, fc.constantFrom(';', '&&', '||', '|'), blank, redirected), { maxLength: 5 }),
      fc.constantFrom('', ';', ' ;', '; ', ' '),
    )
    .map(([lead, first, rest, end]) => `${lead}${first}${rest.map(([a, op, b, c]) => `${a}${op}${b}${c}`).join('')}${end}`);

  it('reads lists and pipelines of plain commands exactly as the parser does: the same tree, the same effects', () => {
    let plain = 0;
    fc.assert(
      fc.property(listScript, (cmd) => {
        if (plainScript(cmd)) plain++;
        sameAsParser(cmd);
      }),
      { numRuns: 3000 * Number(process.env.BASH_FAST_SCALE ?? 1) },
    );
    // Much of what the generator makes is read without the parser (not: a pipeline of three or more in a
    // list, a redirection after a statement's first command, a keyword first).
    expect(plain).toBeGreaterThan(600 * Number(process.env.BASH_FAST_SCALE ?? 1));
  });

  it('whatever it reads without the parser, over any text, the parser reads the same way', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_./:=,+@%\t ;&|<>$'"`(){}\\#!*?~\n-]{1,40}$/),
      // The fast path's own alphabet, its operators made of the same characters: `&`, `|&`, `;;`, `|||`, `&&&`.
      fc.stringMatching(/^[a-z0-9_./:=,+@%\t ;&|>-]{1,40}$/),
      // Its redirections, spelled right and wrong, between its commands.
      fc
        .array(fc.constantFrom('a', 'b 1', 'git diff', ' ', '2>&1', '>/dev/null', '2>', '/dev/null', '>&', '0>&1', '2>&12', '&', '&&', '|', ';', '>', '1'), { minLength: 1, maxLength: 8 })
        .map((xs) => xs.join(' ')),
    );
    fc.assert(fc.property(text, sameAsParser), { numRuns: 5000 * Number(process.env.BASH_FAST_SCALE ?? 1) });
  });

  // Whole words in quotes: '…' of any printable ASCII, "…" of what is literal inside double quotes, and
  // near misses the fast path must leave to the parser (`$`, backquotes, `\`, `!`, quotes joined to text).
  const quotedWord = fc.oneof(
    fc.stringMatching(/^[\t\x20-\x26\x28-\x7e]{0,12}$/).map((x) => `'${x}'`),
    fc.stringMatching(/^[A-Za-z0-9_./:=,+@%\t #&'()*;<>?[\]^{|}~-]{0,12}$/).map((x) => `"${x}"`),
    fc.stringMatching(/^[\t\x20-\x7e]{0,8}$/).map((x) => `"${x}"`),
    fc.constantFrom(`"$HOME"`, '"`id`"', `"a\\b"`, `"!x"`, `--format='%h'`, `a"b"`, `"a"'b'`, `'a'"b"`, `""`, `''`, `"'"`, `'"'`, `"rm"`, `'rm'`, `".agents/tmp/state.json"`),
  );
  // After an option's start, or another word's (near misses): `--include="*.ts"`, `-e'x'`, `a=1"b"`, `+x'y'`.
  const optionStart = fc.oneof(
    fc.constantFrom('', '', '', '--include=', '--format=', '--pretty=format:', '-e', '-', '--', '-n=', '--a-b=', '--a=b=', '-o.', 'a=', 'x', '+x', '%1', '@a', '--a%='),
    fc.stringMatching(/^-[A-Za-z0-9_./:=,+@%-]{0,6}$/),
  );
  const argument = fc.tuple(optionStart, quotedWord).map(([start, word]) => `${start}${word}`);
  const quotedCommand = fc
    .tuple(
      fc.oneof(quotedWord, argument, fc.constantFrom('rm', 'grep -n', 'git', 'git log', 'sed -i', 'cp', 'tee', 'echo', 'cat', 'bash -c', 'sh -c', 'eval', 'find . -name', 'xargs', 'FOO=1 env')),
      fc.array(fc.oneof(quotedWord, argument, fc.stringMatching(/^[A-Za-z0-9_./,:-]{1,10}$/), fc.constantFrom('2>&1', '>/dev/null', 'src/a.ts', '.agents/tmp/state.json', '-i', '--', 'stash')), { maxLength: 5 }),
    )
    .map(([first, rest]) => [first, ...rest].join(' '));
  const quotedScript = fc
    .tuple(quotedCommand, fc.array(fc.tuple(blank, fc.constantFrom(';', '&&', '||', '|'), blank, quotedCommand), { maxLength: 3 }))
    .map(([first, rest]) => `${first}${rest.map(([a, op, b, c]) => `${a}${op}${b}${c}`).join('')}`);

  it('reads whole words in quotes exactly as the parser does: the same tree, the same effects', () => {
    let read = 0;
    fc.assert(
      fc.property(quotedScript, (cmd) => {
        const plain = plainScript(cmd);
        if (!plain) return;
        read++;
        const parsed = parse(cmd);
        expect(parsed.complete, cmd).toBe(true);
        expect(plain.root.children.map(shape), cmd).toEqual(parsed.root.children.map(shape));
        // A script inside quotes (`bash -c '1%'`) is read again, by the fast path where it can: where the
        // grammar fails on words bash reads as words, that reading is bash's (as above).
        const viaParser = analyseParsed(cmd);
        if (!viaParser.some((e) => e.kind === 'unparseable')) expect(analyse(cmd), cmd).toEqual(viaParser);
      }),
      { numRuns: 4000 * Number(process.env.BASH_FAST_SCALE ?? 1) },
    );
    expect(read).toBeGreaterThan(400 * Number(process.env.BASH_FAST_SCALE ?? 1));
  });

  it.each([
    [`grep -n "foo bar" src/a.ts`, true],
    [`grep -rn 'a|b > c; d' src | head -5`, true],
    [`"git" status && 'git' diff`, true],
    [`git log --format='%h %s' -5`, true],
    [`grep -rn "total" --include="*.ts" src | head`, true],
    [`--a="x" y`, false],
    [`git log --format='%h'x`, false],
    [`echo "$HOME"`, false],
    [`echo "a\\"b"`, false],
    [`echo " "`, false],
    [`echo 'it'"s"`, false],
    [`FOO="a b" env`, false],
    [`echo "x">/dev/null`, false],
  ])('`%s` is read without the parser: %s', (cmd, fast) => {
    expect(plainScript(cmd) !== null).toBe(fast);
    expect(analyse(cmd)).toEqual(analyseParsed(cmd));
  });

  it('HOME is where ~ points', () => {
    expect(analyse('rm ~/x')).toEqual([{ kind: 'write', command: 'rm', target: { kind: 'path', path: `${HOME}/x` }, recursive: true, via: expect.anything() }]);
  });
});

describe("a symbolic link into the hooks' files, by a target read from the link's own directory", () => {
  it.each([
    'ln -s ../.agents/tmp src/t',
    'ln -s ../.agents/tmp src',
    'ln -sfn ../../.agents/tmp/state.json src/deep/s.json',
    'ln -s -t src ../.agents/tmp',
    'ln --symbolic ../.git src/g',
    'cd src && ln -s ../.agents/tmp t',
  ])('the fixer: `%s` is refused', (cmd) => {
    expect(['hooks', 'agents', 'protected'], cmd).toContain(outcomeOf(decide(R2, 'minions:review-fixer', cmd)));
  });

  it.each(['ln -s ../lib/util.js src/util.js', 'ln -s util.js src/alias.js', 'ln -sr lib/x.js src/x.js', 'ln -s lib/x.js y'])('the fixer: `%s` is allowed', (cmd) => {
    expect(decide(R2, 'minions:review-fixer', cmd).allow, cmd).toBe(true);
  });
});
