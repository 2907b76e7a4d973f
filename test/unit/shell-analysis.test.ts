/** The shell analysis: what a command writes, which git it runs, what the gate cannot see. Real parser, no file system. */
import { describe, expect, it } from 'vitest';
import { analyseCommand } from '../../src/bash/analyse';
import { scanOptions, type ShellEffect } from '../../src/bash/effects';
import { readSedScript } from '../../src/bash/sed';
import { plainScript } from '../../src/bash/syntax';
import { segmentsOf, touches } from '../../src/bash/touches';
import { wordValues } from '../../src/bash/words';
import { HOME, ROOT, analyse, parse, writes } from './bash';

const lit = (text: string) => ({ kind: 'literal' as const, text });
const inProject = (p: string): boolean => p === ROOT || p.startsWith(`${ROOT}/`);
/** Git run inside the project: reported (git-cwd), never refused. */
const gitInProject = (e: ShellEffect): boolean => e.kind === 'git-cwd' && e.dir.kind === 'path' && inProject(e.dir.path);

describe('what a command writes', () => {
  it.each([
    // Redirections, every form.
    ['echo 0 > .agents/tmp/state.json', ['.agents/tmp/state.json']],
    ['echo 0 1>.agents/tmp/state.json', ['.agents/tmp/state.json']],
    ['echo 0 >| f', ['f']],
    ['echo 0 &> f', ['f']],
    ['echo 0 &>> f', ['f']],
    ['echo 0 >> f', ['f']],
    ['echo 0 2> err.log', ['err.log']],
    ['echo 0 >& f', ['f']],
    ['echo 0 2>&1 >/dev/null', ['/dev/null']],
    ['npm test 2>&1 | tail -20', []],
    ['cat < in.txt; cmd 3<&0; cmd >&2; cmd 2>&-', []],
    ['{ a; b; } > out', ['out']],
    ['while read l; do x; done < f > g', ['g']],
    ['f() { echo; } > out', ['out']],
    ['exec > log.txt', ['log.txt']],
    // Quoting and escaping of names and paths.
    ['\\rm -rf src', ['src (recursive)']],
    ["'rm' a", ['a (recursive)']],
    ["r''m a", ['a (recursive)']],
    ['"r"m a', ['a (recursive)']],
    ['$"rm" a', ['a (recursive)']],
    ['  rm   a', ['a (recursive)']],
    ['RM a', ['a (recursive)']],
    ['/bin/rm a', ['a (recursive)']],
    ["echo x > '.agents/tmp/state.json'", ['.agents/tmp/state.json']],
    ['echo x > .ag""ents/tmp/state.json', ['.agents/tmp/state.json']],
    ['echo x > \\.agents/tmp/state\\.json', ['.agents/tmp/state.json']],
    ['echo x > ./src/../.agents/./tmp/state.json', ['.agents/tmp/state.json']],
    ['echo x > ~/notes.txt', [`${HOME}/notes.txt`]],
    // bash expands ~ after the = of a word that looks like an assignment, argument or not.
    ['dd if=/dev/zero of=~/disk.img', [`${HOME}/disk.img`]],
    ['dd of=~root/x', ['$of=~root/x']],
    // The grammar files these under the heredoc; bash runs them as rm's arguments, and as a second line.
    ['rm <<EOF .agents/x\nEOF', ['.agents/x (recursive)']],
    ['echo a\n\\rm b', ['b (recursive)']],
    ['echo a\n\n\\rm b', ['b (recursive)']],
    ['rm {src,test}/a.ts', ['src/a.ts (recursive)', 'test/a.ts (recursive)']],
    ['rm .agent{s,x}/tmp', ['.agents/tmp (recursive)', '.agentx/tmp (recursive)']],
    ['rm {x/../.agents,y}', ['.agents (recursive)', 'y (recursive)']],
    ['rm f{1..3}', ['f1 (recursive)', 'f2 (recursive)', 'f3 (recursive)']],
    ['rm src/*.ts', ['src/*.ts (recursive)']],
    // Wrappers.
    ['command rm a', ['a (recursive)']],
    ['env rm a', ['a (recursive)']],
    ['env -i FOO=1 /usr/bin/rm a', ['a (recursive)']],
    ['env -C src rm a', ['src/a (recursive)']],
    ['nohup rm a &', ['a (recursive)']],
    ['timeout 5 rm a', ['a (recursive)']],
    ['timeout -s KILL -k 2 5 rm a', ['a (recursive)']],
    ['sudo -u root rm a', ['a (recursive)']],
    ['sudo -E FOO=1 rm a', ['a (recursive)']],
    ['nice -n 5 ionice -c 3 stdbuf -o0 rm a', ['a (recursive)']],
    ['exec rm a', ['a (recursive)']],
    ['builtin command exec rm a', ['a (recursive)']],
    ['time rm a', ['a (recursive)']],
    ['xargs rm', ['$<input> (recursive)']],
    ['xargs -0 -n 1 rm -f', ['$<input> (recursive)']],
    ['xargs -I{} rm {}', ['${} (recursive)']],
    ['busybox rm a', ['a (recursive)']],
    ['npx rimraf dist', ['dist (recursive)']],
    ['npm exec -- rimraf dist', ['dist (recursive)']],
    ['find . -name "*.orig" -delete', ['tree:.']],
    ['find src -delete', ['tree:src']],
    ['find src -exec rm {} \\;', ['${} (recursive)']],
    ['find src -type f -execdir rm -f {} +', ['${} (recursive)']],
    ['find . -fprint list.txt', ['list.txt']],
    ['find src -name "*.ts"', []],
    ['watch -n 1 rm a', ['a (recursive)']],
    ['chroot / rm a', ['a (recursive)']],
    ["sg wheel -c 'rm a'", ['a (recursive)']],
    ["hyperfine -p 'rm b' 'rm a'", ['a (recursive)', 'b (recursive)']],
    ["mapfile -C 'rm a' -c 1 < f", ['a (recursive)']],
    ['flock /tmp/lock rm a', ['/tmp/lock', 'a (recursive)']],
    // Compound commands, substitutions.
    ['if true; then rm a; fi', ['a (recursive)']],
    ['for f in a b; do rm $f; done', ['$$f (recursive)']],
    ['while false; do rm a; done', ['a (recursive)']],
    ['case x in x) rm a;; esac', ['a (recursive)']],
    ['(rm a)', ['a (recursive)']],
    ['true && rm a || rm b', ['a (recursive)', 'b (recursive)']],
    ['ls | rm a', ['a (recursive)']],
    ['echo $(rm a)', ['a (recursive)']],
    ['echo `rm a`', ['a (recursive)']],
    ['echo "$(rm a)"', ['a (recursive)']],
    ['x=$(rm a)', ['a (recursive)']],
    ['export X=$(rm a)', ['a (recursive)']],
    ['[[ $(rm a) ]]', ['a (recursive)']],
    ['diff <(rm a) >(tee b)', ['a (recursive)', 'b']],
    ['cat <<EOF\n$(rm a)\nEOF', ['a (recursive)']],
    ["cat > f <<'EOF'\n$(rm a)\nEOF", ['f']],
    ['g() { rm a; }', ['a (recursive)']],
    // Code in strings.
    ['bash -c "rm a"', ['a (recursive)']],
    ["sh -c 'rm a'", ['a (recursive)']],
    ["bash -lc 'rm a'", ['a (recursive)']],
    ["bash -o pipefail -ec 'rm a'", ['a (recursive)']],
    ["eval 'rm a'", ['a (recursive)']],
    ['eval rm a', ['a (recursive)']],
    ["bash -c \"bash -c 'sh -c \\\"rm a\\\"'\"", ['a (recursive)']],
    ["xargs sh -c 'rm \"$@\"' _", ['$"$@" (recursive)']],
    ["find . -exec sh -c 'rm a' \\;", ['a (recursive)']],
    ["trap 'rm a' EXIT", ['a (recursive)']],
    ["env -S 'rm a'", ['a (recursive)']],
    ["npx -c 'rm a'", ['a (recursive)']],
    ["watch 'rm a'", ['a (recursive)']],
    ["su -c 'rm a'", ['a (recursive)']],
    ['bash <<EOF\nrm a\nEOF', ['a (recursive)']],
    ["bash <<< 'rm a'", ['a (recursive)']],
    // In-place flags wherever they stand.
    ["sed -i 's/a/b/' f", ['f']],
    ["sed 's/a/b/' -i f", ['f']],
    ["sed -i.bak 's/a/b/' f", ['f']],
    ["sed --in-place=.bak 's/a/b/' f", ['f']],
    ["sed --in-pl 's/a/b/' f", ['f']],
    ["sed -ni 's/a/b/p' f", ['f']],
    ["sed -E -e 's/a/b/' -i f g", ['f', 'g']],
    ["sed -n '1,20p' f", []],
    ["sed 's/a/b/w out.txt' f", ['out.txt']],
    ["sed '1w out.txt' f", ['out.txt']],
    ["perl -pi -e 's/a/b/' f", ['f']],
    ["perl -pe 's/a/b/' -i f", ['f']],
    ["perl -i.bak -pe 's/a/b/' f", ['f']],
    ["perl -ne 'print' f", []],
    ["ruby -i -pe 'x' f", ['f']],
    ["gawk -i inplace '{print}' f", ['f']],
    // Other writers.
    ['cp a b', ['b (recursive)']],
    ['cp -t dest a b', ['dest (recursive)']],
    ['cp -s a b', ['a (recursive)', 'b (recursive)']],
    ['mv a b', ['a (recursive)', 'b (recursive)']],
    ['ln -s .agents/tmp/state.json link', ['.agents/tmp/state.json', 'link']],
    // A relative target of a symbolic link is read from the link's directory (or from inside the last
    // operand, when that is a directory): both places, and the target as written.
    ['ln -s ../.agents/tmp src/t', ['/work/.agents/tmp', 'src/t', 'src/.agents/tmp', '.agents/tmp']],
    ['ln -s ../.agents/tmp src', ['/work/.agents/tmp', 'src', '.agents/tmp']],
    ['ln -sf ../../.agents/tmp/state.json src/deep/s.json', ['/.agents/tmp/state.json', 'src/deep/s.json', 'src/.agents/tmp/state.json', '.agents/tmp/state.json']],
    ['ln -s -t src/lib ../../.git', ['/.git', 'src/lib', '.git']],
    ['ln -s lib/x.js y', ['lib/x.js', 'y']],
    ['ln -sr .agents/tmp src/t', ['.agents/tmp', 'src/t']],
    ['ln -s /abs/x src/t', ['/abs/x', 'src/t']],
    ['ln a b', ['a', 'b']],
    ['touch a; mkdir -p d; truncate -s 0 t; chmod +x s', ['a', 'd', 't', '+x', 's']],
    ['tee a b', ['a', 'b']],
    ['dd if=/dev/zero of=disk.img', ['disk.img']],
    ['sort -o sorted.txt in.txt', ['sorted.txt']],
    ['uniq in.txt out.txt', ['out.txt']],
    ['curl -o page.html https://example.org', ['page.html']],
    ['curl -sSLo page.html https://example.org', ['page.html']],
    ['curl -O https://example.org/x', ['?curl -O https://example.org/x']],
    ['wget https://example.org/x', ['?wget https://example.org/x']],
    ['tar xzf a.tgz', ['?tar xzf a.tgz']],
    ['tar -czf out.tgz src', ['out.tgz']],
    ['tar -tzf a.tgz', []],
    ['unzip a.zip', ['?unzip a.zip']],
    ['unzip -l a.zip', []],
    ['gzip big.log', ['big.log']],
    ['gzip -c big.log', []],
    ['patch -p1 < fix.diff', ['?patch -p1']],
    ['patch --dry-run -p1 < fix.diff', []],
    ['mktemp', []],
    ['mktemp src/x.XXXX', ['src/x.XXXX']],
    ['npm install', ['?npm install']],
    ['npm i lodash', ['?npm i lodash']],
    ['yarn', ['?yarn']],
    ['go mod tidy', ['?go mod tidy']],
    ['eslint --fix src', ['?eslint --fix src']],
    ['prettier --write .', ['?prettier --write .']],
    ['black src', ['?black src']],
    ['black --check src', []],
    ['ruff format', ['?ruff format']],
    ['ruff check src', []],
    ['git diff --output=x.patch', ['x.patch']],
    ['git -C src log --output=log.txt', ['src/log.txt']],
    ['git apply fix.diff', ['?git apply fix.diff']],
    // The directory a command runs in.
    ['cd .agents/tmp && echo 0 > state.json', ['state.json', '.agents/tmp/state.json']],
    // Each cd may fail: every directory the shell may be in counts.
    ['cd src; cd ../.agents; rm x', ['x (recursive)', 'src/x (recursive)', '/work/.agents/x (recursive)', '.agents/x (recursive)']],
    ['cd /tmp && rm x', ['x (recursive)', '/tmp/x (recursive)']],
    ['cd "$D" && rm x', ['$x (recursive)']],
    ['cd - && rm x', ['$x (recursive)']],
    ['for d in a; do cd $d; done; rm x', ['$x (recursive)']],
    ['f() { rm x; }; cd .agents; f', ['$x (recursive)']],
    ['eval "cd .agents"; rm x', ['$x (recursive)']],
    ['CDPATH=.agents; cd tmp; rm x', ['$x (recursive)']],
    ['(cd .agents && rm x); rm y', ['$x (recursive)', '$y (recursive)']],
    ['bash -c "cd .agents"; rm y', ['y (recursive)']],
    ['rm /abs/path', ['/abs/path (recursive)']],
    // Read-only.
    ['cat src/a.ts | grep -n foo | head', []],
    ['ls -la .agents/tmp/phases', []],
    ['grep -rn "a > b" src', []],
    ["node -e 'console.log(1 > 0)'", []],
    ['npm test; npx vitest run; pytest -q; go test ./...', []],
  ] as [string, string[]][])('%j → %j', (command, expected) => {
    expect(writes(command)).toEqual(expected);
  });

  it('relative paths start from the directory the command runs in', () => {
    expect(writes('echo 0 > state.json', `${ROOT}/.agents/tmp`)).toEqual(['.agents/tmp/state.json']);
    expect(writes('rm ../../src', `${ROOT}/.agents/tmp`)).toEqual(['src (recursive)']);
  });
});

// Found by an adversarial pass over the gate (2026-12-02): spellings under which bash runs a write or a
// git mutation that the analysis missed, each checked in bash 5.2 first.
describe('what bash runs that the analysis once missed', () => {
  const effectsOf = (command: string) => analyse(command).map((e) => (e.kind === 'write' ? `write ${e.target.kind === 'path' ? e.target.path.replace(`${ROOT}/`, '') : e.target.kind}` : e.kind === 'git' ? `git ${e.sub}` : e.kind === 'git-cwd' ? `git in ${e.dir.kind === 'path' ? e.dir.path : 'dynamic'}` : `${e.kind}${e.kind === 'opaque' ? ` ${e.why}` : ''}`));
  it.each([
    // An append-assignment before the command: the fast path took `a+=b` for the command's name.
    ['a+=b rm -rf src', 'write src'],
    ['a+=b git stash', 'git stash'],
    ["a+=b git 'stash'", 'git stash'],
    ["eval 'a+=b rm src'", 'write src'],
    // The grammar reads `_=x` first as a command's name; bash, as an assignment.
    ['_=x git stash; ls', 'git stash'],
    ['_=x rm -rf src && ls', 'write src'],
    ['A=1 _=x rm src; ls', 'write src'],
    ['(_=x git stash)', 'git stash'],
    // env takes any word with `=` for a variable.
    ['env 9=x rm src', 'write src'],
    ['env a+=b git stash', 'git stash'],
    // A shell's options after `+`.
    ["bash +x -c 'rm z'", 'write z'],
    ["bash -c +x 'rm z'", 'write z'],
    ["bash +c 'rm z'", 'write z'],
    ["bash +xc 'rm z'", 'write z'],
    ["sh -c +e 'rm z'", 'write z'],
    ["bash -c +o posix 'rm z'", 'write z'],
    ["bash +O extglob -c 'rm z'", 'write z'],
    ['bash -c +ex "git stash"', 'git stash'],
    // flock's -c after the lock file.
    ["flock /tmp/l -c 'git stash'", 'git stash'],
    ["flock /tmp/l --command 'git stash'", 'git stash'],
    // A subscript bash expands when a builtin evaluates it, quoted or not.
    ["let 'x[$(rm y)]=1'", 'opaque dynamic-code'],
    ["printf -v 'a[$(git stash)]' x", 'opaque dynamic-code'],
    ["test -v 'a[$(rm -rf src)]'", 'opaque dynamic-code'],
    ["read 'a[$(rm y)]' </dev/null", 'opaque dynamic-code'],
    ["[ -v 'a[$(rm y)]' ]", 'opaque dynamic-code'],
    ["declare 'a[$(rm y)]=1'", 'opaque dynamic-code'],
    ["[[ 'a[$(rm y)]' -eq 1 ]]", 'opaque dynamic-code'],
    ["unset 'a[`rm y`]'", 'opaque dynamic-code'],
    // A second pass: code in ${…} and $((…)) that the grammar keeps as words, and code kept in variables.
    ['echo ${x:-`git stash`}', 'opaque dynamic-code'],
    ["echo \"${x:-'$(git stash)'}\"", 'opaque dynamic-code'],
    ["cat <<EOF\n${x:-'$(git stash)'}\nEOF", 'opaque dynamic-code'],
    ["(( '$(git stash)' ))", 'opaque dynamic-code'],
    ["echo $(( '$(git stash)' + 1 ))", 'opaque dynamic-code'],
    ["a=(1 2); echo ${a['$(rm y)']}", 'opaque dynamic-code'],
    ["PS4='$(git stash)'; set -x; true", 'opaque dynamic-code'],
    ["x='$(git stash)'; echo ${x@P}", 'opaque dynamic-code'],
    ["PROMPT_COMMAND='git stash' bash -i <<< true", 'opaque program-option'],
    ["BASH_ENV=/dev/stdin bash -c true <<< 'git stash'", 'opaque program-option'],
    ['env BASH_ENV=/dev/stdin bash -c true', 'opaque program-option'],
    ['coproc { rm -rf src; }', 'opaque dynamic-command'],
    ["trap -- 'git stash' EXIT", 'git stash'],
    ["bash - <<< 'git stash'", 'git stash'],
    ["bash -xv - <<< 'git stash'", 'git stash'],
    ['script -q -c true notes.txt', 'write notes.txt'],
    ['script', 'write typescript'],
    ["echo 'git stash' | script -q /dev/null", 'opaque stdin-code'],
    ['runuser -u root -- git stash', 'git stash'],
    ['runuser -u me rm x', 'write x'],
    ['chrt -o 0 git stash', 'git stash'],
    ['prlimit --nofile=100 rm x', 'write x'],
    ['setpriv rm x', 'write x'],
    ['setarch x86_64 rm x', 'write x'],
    ['linux64 rm x', 'write x'],
    ['ssh-agent rm x', 'write x'],
    ['dbus-run-session -- rm x', 'write x'],
    ['nsenter -t 1 -m git stash', 'git stash'],
    ['valgrind rm x', 'write x'],
    ['parallel rm ::: x', 'opaque dynamic-command'],
    ['env -P /bin rm x', 'write x'],
    ['uniq --group in out', 'write out'],
    ['uniq --all-repeated in out', 'write out'],
    ["perl -0pi -e 's/a/b/' f", 'write f'],
    ['perl -l -pi -e 1 f', 'write f'],
    ['perl -C -pi -e 1 f', 'write f'],
    ['perl -D -pi -e 1 f', 'write f'],
    ['git diff --output out.txt', 'write out.txt'],
    ['git log --output .agents/x', 'write .agents/x'],
    ['git show --output x', 'write x'],
    ['git merge-tree --write-tree a b', 'git merge-tree'],
    ['shopt -s cdable_vars; d=.agents; cd d; rm x', 'write dynamic'],
    ['ln -s . self; rm self/.agents/y', 'write dynamic'],
    ['ln -s . s; rm -rf s/.git', 'write dynamic'],
    ["PAGER='rm -rf src; cat' git log", 'opaque program-option'],
    // A third pass.
    ['echo f | xargs --replace rm {}', 'write dynamic'],
    ['echo | xargs --eof rm -rf .agents', 'write .agents'],
    ['echo | xargs --max-lines rm -rf .agents', 'write .agents'],
    ["echo 'x; git stash' | xargs -I{} sh -c 'echo {}'", 'opaque dynamic-code'],
    ["echo 'x; git stash' | xargs -i bash -c 'echo {}'", 'opaque dynamic-code'],
    ['tar --crea --file=.agents/x.tar y', 'write .agents/x.tar'],
    ['tar --extr --file=/tmp/x.tar', 'write-unknown'],
    ['tar -cf /tmp/t2.tar --remove-fi .agents/y', 'write .agents/y'],
    ['mktemp -p .agents', 'write glob'],
    ['mktemp --tmpdir=.agents', 'write glob'],
    ['TMPDIR=.agents mktemp', 'write dynamic'],
    ['export TMPDIR=.agents; mktemp -d', 'write dynamic'],
    ['history -w .agents/tmp/state.json', 'write .agents/tmp/state.json'],
    ['shuf -o .agents/tmp/state.json in', 'write .agents/tmp/state.json'],
    ['fallocate -p -o 0 -l 3 .agents/tmp/state.json', 'write .agents/tmp/state.json'],
    ['ptx -G in .agents/ptx.out', 'write .agents/ptx.out'],
    ['mkswap -f f', 'write f'],
    ['rename .json .bak .agents/tmp/state.json', 'write .agents/tmp/state.json'],
    ['updatedb -o .agents/x', 'write .agents/x'],
    ['r\\\nm a', 'unparseable'],
    ['g\\\nit stash', 'unparseable'],
    ['rm -rf .agen\\\nts', 'unparseable'],
    ['cat <<EOF\n${x-\nEOF\ngit stash\n#}\nEOF', 'unparseable'],
    ["cat <<EOF\n$(echo '\nEOF\nrm a\n')\nEOF", 'unparseable'],
    ['HOME=/work/shop; echo x > ~/.agents/tmp/state.json', 'write dynamic'],
    ['HOME=/work/shop/.agents; cd; rm -rf tmp', 'write dynamic'],
    ['git fsck --lost', 'git fsck'],
    ['git merge-tree --write a b', 'git merge-tree'],
    ['git config --remove-s user', 'git config'],
    ['git config --unset-a user.foo', 'git config'],
    ['git branch --unset-up', 'git branch'],
    ['git branch --edit-desc', 'git branch'],
    ['git notes --ref list add -m hi HEAD', 'git notes'],
    ['git diff --out x.txt', 'write x.txt'],
    // A fourth pass (git 2.39, util-linux setarch, valgrind 3.19, OpenSSH ssh-agent). Whatever reads
    // revision options writes `--output`, as the diff and log family does.
    ['git rev-list --output=.git/config HEAD', 'write .git/config'],
    ['git blame --output .git/config src/a.ts', 'write .git/config'],
    ['git annotate --output=.git/config src/a.ts', 'write .git/config'],
    ['git shortlog --output=.git/config HEAD', 'write .git/config'],
    ['git reflog --output=.git/config', 'write .git/config'],
    ['git reflog show --output=.agents/x', 'write .agents/x'],
    ['git stash show -p --output=.git/config', 'write .git/config'],
    ['git-rev-list --output=.git/config HEAD', 'write .git/config'],
    ['git blame "$F"', 'opaque dynamic-command'],
    // Another git directory (its config's core.fsmonitor runs under `git status`), index (rewritten where
    // it says) or work tree; a mutation through one is still refused as the mutation.
    ['GIT_DIR=/tmp/e git status', 'opaque other-repository'],
    ['git --git-dir=/tmp/e status', 'opaque other-repository'],
    ['git --git-dir /tmp/e diff', 'opaque other-repository'],
    ['git --work-tree=/tmp/w status', 'opaque other-repository'],
    ['git --bare log', 'opaque other-repository'],
    ['GIT_COMMON_DIR=/tmp/e git status', 'opaque other-repository'],
    ['GIT_INDEX_FILE=.agents/tmp/state.json git status', 'opaque other-repository'],
    ['env GIT_OBJECT_DIRECTORY=/tmp/o git log', 'opaque other-repository'],
    ['git --git-dir=/tmp/e apply --check p.diff', 'opaque other-repository'],
    ['export GIT_DIR=/tmp/e; git status', 'opaque other-repository'],
    ['GIT_DIR=/tmp/e git stash', 'git stash'],
    // Those set in other spellings, and the test knob that names an fsmonitor program.
    [': ${GIT_DIR:=/tmp/e}; export GIT_DIR; git status', 'opaque other-repository'],
    ['read GIT_DIR <<< /tmp/e; export GIT_DIR; git status', 'opaque other-repository'],
    ['export GIT_"DIR"=/tmp/e; git status', 'opaque other-repository'],
    ["export GIT_'EXTERNAL_DIFF'=./x; git diff", 'opaque program-option'],
    ['GIT_TEST_FSMONITOR=./x git status', 'opaque program-option'],
    // setarch's options after the architecture; without a program it runs a shell on its input.
    ['setarch x86_64 -R rm -rf src', 'write src'],
    ['setarch x86_64 --addr-no-randomize git stash', 'git stash'],
    ['setarch -R x86_64 rm x', 'write x'],
    ["echo 'git stash' | setarch x86_64", 'opaque stdin-code'],
    ["linux64 -R <<< 'rm x'", 'write x'],
    // valgrind's log, XML and out files; ssh-agent's socket.
    ['valgrind --log-file=.agents/tmp/state.json true', 'write .agents/tmp/state.json'],
    ['valgrind --xml=yes --xml-file=.git/config true', 'write .git/config'],
    ['valgrind --log-file=.agents/vg.%p true', 'write glob'],
    ['valgrind --log-file=%q{D}/x true', 'write dynamic'],
    ['valgrind --tool=massif true', 'write glob'],
    ['ssh-agent -a .agents/sock true', 'write .agents/sock'],
    // A fifth pass. Variables exported under names the text does not show (a computed name, a brace in
    // one, a nameref, or every assignment under set -a): each ran a GIT_DIR config's program under git,
    // or a BASH_ENV file under `bash -c`; a mutation is still named as one.
    ['export GIT_{DIR,X}=/tmp/e; git status', 'opaque hidden-environment'],
    ['export {GIT_DIR,X}=/tmp/e; git diff', 'opaque other-repository'],
    ['command export GIT_{DIR,X}=/tmp/e; git status', 'opaque hidden-environment'],
    ['n=GIT_DIR; export "$n=/tmp/e"; git status', 'opaque hidden-environment'],
    ['declare -x GIT_$x=/tmp/e; git log -p', 'opaque hidden-environment'],
    ['declare -n r=$v; export r=/tmp/e; git status', 'opaque hidden-environment'],
    ['set -a; read GIT_DIR <<< /tmp/e; git status', 'opaque hidden-environment'],
    ['set -a; for GIT_DIR in /tmp/e; do :; done; git status', 'opaque hidden-environment'],
    ['set -ea; printf -v GIT_DIR /tmp/e; git diff', 'opaque hidden-environment'],
    ['set -o allexport; read GIT_DIR <<< /tmp/e; git status', 'opaque hidden-environment'],
    ['shopt -so allexport; read GIT_DIR <<< /tmp/e; git status', 'opaque hidden-environment'],
    ["bash -a -c 'read GIT_DIR <<< /tmp/e; git status'", 'opaque hidden-environment'],
    ['n=BASH_ENV; export "$n=/tmp/x.sh"; bash -c true', 'opaque hidden-environment'],
    ['set -a; read GIT_DIR <<< /tmp/e; git stash', 'git stash'],
    // git run outside the project: any directory holding HEAD, objects/ and refs/ is a bare repository
    // to git, whose config (diff.external, a textconv) ran under `git diff A B` and `git show`.
    ['git -C /tmp/b show', 'git in /tmp/b'],
    ['cd /tmp/b && git diff HEAD~1 HEAD', 'git in /tmp/b'],
    ['git -C .. log -p', 'git in /work'],
    ['git -C "$D" show', 'git in dynamic'],
    ['cd "$D"; git show', 'git in dynamic'],
    ['ln -s /tmp/b lnk; git -C lnk show', 'git in dynamic'],
    ['PWD=/tmp/b; git -C "$PWD" show', 'git in dynamic'],
    // Wrappers that run a shell on their input when given no command.
    ["echo 'rm -rf src' | unshare -r", 'opaque stdin-code'],
    ["unshare -r <<< 'rm -rf src'", 'write src'],
    ["echo 'git stash' | chroot /", 'opaque stdin-code'],
    ["echo 'git stash' | nsenter", 'opaque stdin-code'],
    ["echo 'git stash' | fakeroot", 'opaque stdin-code'],
    ["echo 'git stash' | su", 'opaque stdin-code'],
    ["su root -- -c 'rm x'", 'write x'],
    ["echo 'git stash' | runuser root", 'opaque stdin-code'],
    ["echo 'git stash' | sg root", 'opaque stdin-code'],
    ["echo 'git stash' | newgrp", 'opaque stdin-code'],
    // valgrind reads options from ~/.valgrindrc, $VALGRIND_OPTS and ./.valgrindrc: its writes are unknown.
    ['valgrind -q --log-file=/tmp/vg.log true', 'write-unknown'],
    ['VALGRIND_OPTS=--log-file=.agents/tmp/state.json valgrind true', 'write-unknown'],
  ])('%j: %s', (command, effect) => {
    expect(effectsOf(command)).toContain(effect);
  });

  it.each([
    "flock /tmp/l -c 'git status'", "bash +x -c 'git diff'", 'env 9=x git status', "printf '%s\\n' '$(not run)'", "[[ -n 'a[1]' ]]", "let 'x[1]=2'",
    'x=$(git rev-parse HEAD); echo $x', 'echo $(( $(wc -l < f) + 1 ))', 'for i in 1 2; do (( i++ )); done', 'echo "${HOME:-/root}" ${x:-default}',
    "grep -n '$(' script.sh", 'perl -0777 -ne print f', 'perl -Ci -pe 1 f', "git log --format='%h %s' -5", 'uniq in', 'script -q -c "git status" /dev/null',
    'ls | xargs -I{} echo {}', 'git ls-files | xargs grep -n TODO', 'tar -tf x.tar', 'tar --list --file=x.tar', 'mktemp -u', 'history',
    'npm test \\\n  -- --reporter=dot', 'cat <<EOF\nhello\nEOF', 'echo $HOME; ls ~/x', 'git notes --ref list list', 'git branch --list', 'mktemp',
    'git status', 'git diff', 'git log -p', 'git show', 'git -C src status', 'git -C src log -p -- a.ts', 'git rev-list --count HEAD', 'git blame -L 1,5 src/a.ts',
    'git stash show -p', 'git shortlog -sn HEAD', 'git reflog', 'git log -p --output=/tmp/log.txt', 'echo "$GIT_DIR"; git status', 'git -c core.quotepath=off status',
    'setarch x86_64 -R true', 'linux64 true', 'setarch --list', 'ssh-agent -a /tmp/agent.sock true', 'export FOO=1; git status',
    'export PATH="$PATH:/x" FOO="a b" BAR; git diff', 'set -euo pipefail; git log -p', 'set -- -a; git status', 'f() { local x=$1; git status; }; f a',
    'declare -a arr=(1 2); git status', 'git -C "$PWD" status', 'cd src && git -C "${PWD}" diff', 'cd src && git log -p', 'unshare -r true', 'fakeroot ls', 'su',
  ])('%j stays allowed', (command) => {
    // Writes outside the project (the lock file in /tmp, /dev/null), and git run inside it, are fine for everyone.
    expect(analyse(command).filter((e) => !gitInProject(e) && (e.kind !== 'write' || e.target.kind !== 'path' || inProject(e.target.path)))).toEqual([]);
  });
});

describe('git, whatever the spelling', () => {
  const git = (command: string) => analyse(command).filter((e) => e.kind === 'git' || e.kind === 'opaque');
  it.each([
    ['git stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['/usr/bin/git stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['\\git stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ["'git' stash", { kind: 'git', sub: 'stash', known: true, via: null }],
    ['command git stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['env GIT_DIR=.git git stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['git -C src stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['git --git-dir=.git --work-tree=. stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['git --git-dir .git stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['git --no-pager -c color.ui=never stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['git -c alias.s=stash s', { kind: 'git', sub: 'stash', known: true, via: 's' }],
    ["git -c 'alias.s=stash push' s", { kind: 'git', sub: 'stash', known: true, via: 's' }],
    ["git -c alias.x='!rm -rf src' x", { kind: 'git', sub: '!rm -rf src', known: false, via: 'x' }],
    ['git -c alias.status=stash status', null],
    ['git st', { kind: 'git', sub: 'st', known: false, via: null }],
    ['git checkout-index -a -f', { kind: 'git', sub: 'checkout-index', known: true, via: null }],
    ['git apply --index p.diff', { kind: 'git', sub: 'apply --index', known: true, via: null }],
    ['git apply -3 p.diff', { kind: 'git', sub: 'apply --index', known: true, via: null }],
    ['git-stash', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['/usr/lib/git-core/git-reset --hard', { kind: 'git', sub: 'reset', known: true, via: null }],
    ['git branch -D old', { kind: 'git', sub: 'branch', known: true, via: null }],
    ['git branch newbranch', { kind: 'git', sub: 'branch', known: true, via: null }],
    ['git tag v1', { kind: 'git', sub: 'tag', known: true, via: null }],
    ['git config user.name x', { kind: 'git', sub: 'config', known: true, via: null }],
    ['git stash pop', { kind: 'git', sub: 'stash', known: true, via: null }],
    ['git reflog expire --all', { kind: 'git', sub: 'reflog', known: true, via: null }],
    ['git --bogus status', { kind: 'git', sub: '--bogus', known: false, via: null }],
    ['git $SUB', { kind: 'opaque', command: 'git $SUB', why: 'dynamic-command' }],
    ['git diff $REF', { kind: 'opaque', command: 'git diff $REF', why: 'dynamic-command' }],
    ['git log --author="$(git config user.name)"', { kind: 'opaque', command: 'git log --author="$(git config user.name)"', why: 'dynamic-command' }],
    ['git branch "$X"', { kind: 'opaque', command: 'git branch "$X"', why: 'dynamic-command' }],
    ['git config user.name x', { kind: 'git', sub: 'config', known: true, via: null }],
    ['git config --unset user.name', { kind: 'git', sub: 'config', known: true, via: null }],
    ['git ls-remote --upload-pack=./x origin', { kind: 'opaque', command: 'git ls-remote --upload-pack', why: 'program-option' }],
    ['git -c core.pager=less log', { kind: 'opaque', command: 'git -c core.pager=less', why: 'program-option' }],
    ['git -c diff.external=./x diff', { kind: 'opaque', command: 'git -c diff.external=./x', why: 'program-option' }],
    ['git --config-env=alias.s=X s', { kind: 'opaque', command: 'git --config-env alias.s=X', why: 'program-option' }],
    ['GIT_EXTERNAL_DIFF=./x git diff', { kind: 'opaque', command: 'GIT_EXTERNAL_DIFF=… git', why: 'program-option' }],
    ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.s GIT_CONFIG_VALUE_0=stash git s', { kind: 'opaque', command: 'GIT_CONFIG_COUNT=… git', why: 'program-option' }],
    ['git --exec-path=/tmp status', { kind: 'opaque', command: 'git --exec-path=/tmp', why: 'program-option' }],
    ['export GIT_EXTERNAL_DIFF=./x; git diff', { kind: 'opaque', command: 'GIT_EXTERNAL_DIFF=… git', why: 'program-option' }],
    ["GIT_PAGER='rm -rf src'; bash -c 'git -p log'", { kind: 'opaque', command: 'GIT_PAGER=… git', why: 'program-option' }],
    ['HOME=/tmp/h git diff', { kind: 'opaque', command: 'HOME=… git', why: 'program-option' }],
    ['env XDG_CONFIG_HOME=/tmp git status', { kind: 'opaque', command: 'XDG_CONFIG_HOME=… git', why: 'program-option' }],
    ['git grep -O foo', { kind: 'opaque', command: 'git grep --open-files-in-pager', why: 'program-option' }],
    ['GIT_DIR=/tmp/e git status', { kind: 'opaque', command: 'GIT_DIR=… git', why: 'other-repository' }],
    ['git --work-tree /tmp/w --git-dir=/tmp/e log', { kind: 'opaque', command: 'git --work-tree', why: 'other-repository' }],
    ['GIT_INDEX_FILE=/tmp/i git --git-dir=.git reset', { kind: 'git', sub: 'reset', known: true, via: null }],
  ])('%j', (command, effect) => {
    expect(git(command)).toEqual(effect ? [effect] : []);
  });

  it.each([
    'git status', 'git status --porcelain', 'git diff', 'git diff HEAD -- src', 'git log -p', 'git log --oneline -5', 'git show HEAD:src/a.ts',
    'git blame src/a.ts', 'git branch', 'git branch -a', 'git branch --show-current', 'git branch --list "feat/*"', 'git tag', 'git tag -l "v*"',
    'git config --get user.name', 'git config --list', 'git stash list', 'git stash show -p', 'git remote -v', 'git worktree list',
    'git rev-parse HEAD', 'git ls-files', 'git grep -n foo', 'git -C src status', 'git -c core.quotepath=off diff', 'git --version',
    'git apply --check p.diff', 'git reflog', 'git log --format="%H %s" | head', 'git config user.name', 'git config get user.name',
    'git rev-parse "$(git merge-base main HEAD)"', 'git cat-file -p $(git rev-parse HEAD)', 'git ls-files "$DIR"',
    // Object names printed by git in place: no option, even where an option writes (--output).
    'git diff $(git merge-base HEAD main)', 'git diff "$(git merge-base HEAD origin/main)"...HEAD', 'git diff `git merge-base main HEAD`',
    'git log --oneline $(git merge-base main HEAD)..HEAD', 'git show $(git rev-parse --short HEAD)', 'git diff $(git merge-base --fork-point main) -- src',
    'git log -p "$(git rev-parse --verify HEAD@{1})"..HEAD', 'git diff --stat $(git merge-base --all a b)', 'git blame $(git rev-parse --verify HEAD~3) -- src/a.ts',
    'cd src && git diff $(git merge-base main HEAD) | head -50', 'git diff $(git rev-parse -q --verify main) | less',
  ])('%j is read-only', (command) => {
    expect(analyse(command).filter((e) => !gitInProject(e))).toEqual([]);
  });

  // tree-sitter-bash splits a word after `=` before a backquote; bash reads one word (`--output=<name>z`).
  it.each(['git diff --output=`git merge-base a b`z', 'echo a=`x`b'])('%j: the split tree is not trusted', (command) => {
    expect(analyse(command)).toEqual([{ kind: 'unparseable', why: expect.stringMatching(/^the parser splits .* inside a word$/) }]);
  });

  // Each of these can print a word that starts with "-" (shown by real git: `git rev-parse --flags
  // --output=x` prints `--output=x`, `git merge-base -h` its usage), or is read where it may not be git.
  it.each([
    'git diff $(git merge-base -h)',
    'git diff $(git merge-base --help)',
    'git diff $(git rev-parse --flags --output=x)',
    'git diff $(git rev-parse --sq-quote --output=x)',
    'git diff $(git rev-parse --symbolic --output=x)',
    'git diff $(echo --output=x)',
    'git diff $(git merge-base a b)--output=x',
    'git diff "$(git merge-base a b)"-O/tmp/x',
    'git diff $(git merge-base a b)*',
    'git diff $(git merge-base "$A" b)',
    'git diff $(git merge-base $A b)',
    "git diff $(git merge-base 'a' b)",
    'git diff $(git merge-base a b; echo --output=x)',
    'git diff $(git merge-base a b | cat)',
    'git diff $(git -c alias.merge-base=x merge-base a b)',
    'git diff $(GIT_DIR=/tmp/e git merge-base a b)',
    'git diff $(\\git merge-base a b)',
    'git diff $(git log -1 --format=%H)',
    'git diff $(git merge-base a b) $REF',
    'IFS=f; git diff $(git merge-base a b)',
    'PATH=/tmp/e:$PATH; git diff $(git merge-base a b)',
    'git() { echo --output=x; }; git diff $(git merge-base a b)',
    'function git { echo --output=x; }; git diff $(git merge-base a b)',
    'BASE=$(git merge-base HEAD main); git diff $BASE',
    // Brace expansion comes first: `{--output=,x}$(…)` is `--output=<name>` (real bash writes the file).
    'git diff {--output=,x}$(git merge-base a b)',
    'git diff {,--output=y}$(git merge-base a b)',
    'git diff "$(git merge-base a b)"{,--output=y}',
    // rev-parse without --verify echoes a word it cannot resolve (`HEAD1--output1oR`); split on IFS=1 it
    // is `HEAD --output oR`, and IFS can be set by a name the text does not spell (read, printf -v "${v}FS").
    'git diff $(git rev-parse HEAD1--output1oR)',
    'read -r I""FS <<< 1; git diff $(git rev-parse HEAD1--output1oR)',
    'git blame $(git rev-parse HEAD~3) -- src/a.ts',
    // A literal part after a substitution starts a field when the name's last character is in IFS.
    'v=I; printf -v "${v}FS" %s d; git diff HEAD..$(git merge-base b b)--output=oS',
    'git diff HEAD..$(git merge-base b b)--output=oS',
    'git diff HEAD..$(git merge-base b b)x$(git merge-base a b)-O/tmp/x',
    // The git inside the substitution is not git: a function from eval, trap, an exported one, a
    // loadable builtin, the hash table, an alias, or PATH set under a name the text does not spell.
    "eval 'git(' ')' '{ echo --output=x; }'; command git diff $(git merge-base a b)",
    "trap 'git(' DEBUG; command git diff $(git merge-base a b)",
    "git() { echo --output=x; }; export -f git; bash -c 'command git diff $(git merge-base a b)'",
    "env 'BASH_FUNC_git%%=() { echo --output=x; }' bash -c '/usr/bin/git diff $(git merge-base a b)'",
    'bash -c "git diff \\$(git merge-base a b)"',
    'enable -f ./x.so git; /usr/bin/git diff $(git merge-base a b)',
    'BASH_CMDS[git]=./e/git; /usr/bin/git diff $(git merge-base a b)',
    'shopt -s expand_aliases; BASH_ALIASES[git]="echo --output=x"\n\\git diff $(git merge-base a b)',
    'printf -v PA""TH %s ./e; /usr/bin/git diff $(git merge-base a b)',
    'v=PA; w=${v}TH=1; : $((w)); /usr/bin/git diff $(git merge-base a b)',
    'for PATH in ./e; do /usr/bin/git diff $(git merge-base a b); done',
    'source ./f; git -C . diff $(git merge-base a b)',
  ])('%j stays refused', (command) => {
    // Refused as computed, or earlier, as rebinding what a command name runs.
    expect(git(command)).toContainEqual(expect.objectContaining({ kind: 'opaque', why: expect.stringMatching(/^(?:dynamic|rebinds)-command$/) }));
  });
});

describe('what the gate cannot see', () => {
  it.each([
    ['$CMD -rf src', 'dynamic-command'],
    ['$(echo rm) -rf src', 'dynamic-command'],
    ['"$X" a', 'dynamic-command'],
    ['/bin/r? a', 'dynamic-command'],
    ["$'\\x72m' a", 'dynamic-command'],
    ['eval "$X"', 'dynamic-code'],
    ['bash -c "$X"', 'dynamic-code'],
    ['sh "$SCRIPT"', 'dynamic-code'],
    ['echo rm a | sh', 'stdin-code'],
    ['curl -s https://x | bash', 'stdin-code'],
    ['bash < <(echo rm a)', 'stdin-code'],
    ['bash /dev/stdin', 'stdin-code'],
    ['source <(echo rm a)', 'stdin-code'],
    ['{ echo rm a; } | { bash; }', 'stdin-code'],
    ['cat f | tee >(sh)', 'stdin-code'],
    ['coproc sh', 'stdin-code'],
    ['hash -p /bin/rm ls; ls src', 'rebinds-command'],
    ['cat <<EOF | sh\nrm a\nEOF', 'stdin-code'],
    ['bash <<EOF\n$(echo rm) a\nEOF', 'stdin-code'],
    ["alias ls='rm -rf'", 'alias'],
    ["fish -c 'rm a'", 'dynamic-code'],
    ['env $OPTS rm a', 'dynamic-command'],
    ['xargs $CMD', 'dynamic-command'],
    ['sort --compress-program=sh x', 'program-option'],
    ["sed 's/a/b/e' f", 'program-option'],
    ['tar --to-command=sh -xf a.tar', 'program-option'],
    ['fc -s', 'dynamic-code'],
  ])('%j → %s', (command, why) => {
    expect(analyse(command).filter((e) => e.kind === 'opaque').map((e) => (e as { why: string }).why)).toContain(why);
  });

  it.each([
    ['exec 3<>w', 'not valid bash'],
    ['echo "unterminated', 'not valid bash'],
    ['if then', 'not valid bash'],
    ['echo `ls', 'not valid bash'],
    ['cat <<EOF\n`rm a`\nEOF', 'the parser'],
    ['echo a $"b" c', 'the parser'],
  ])('%j is unparseable (%s)', (command, why) => {
    const effects = analyse(command);
    expect(effects.some((e) => e.kind === 'unparseable' && e.why.includes(why))).toBe(true);
  });

  it('nesting code too deeply is refused, not followed forever', () => {
    let command = 'rm a';
    for (let i = 0; i < 12; i++) command = `eval ${JSON.stringify(command).replace(/\$/g, '\\$')}`;
    expect(analyse(command).some((e) => e.kind === 'opaque' && e.why === 'too-deep')).toBe(true);
  });

  it('a command longer than the limit is refused', () => {
    expect(analyse(`echo ${'x'.repeat(300 * 1024)}`)).toEqual([{ kind: 'unparseable', why: 'longer than 256 KB' }]);
  });
});

describe('the plain fast path', () => {
  it.each([
    ['git status', true],
    ['ls -la src', true],
    ['FOO=1 npm test', true],
    ['npm test 2>&1', true],
    ['cat a | b', true],
    ['git status && git diff; npm test | tail -20 ;', true],
    ['a||b&&c', true],
    ['npm test 2>&1 | tail -20', true],
    ['cat x 2>/dev/null && git diff >/dev/null 2>&1', false],
    ['cat x 2>/dev/null && git diff', true],
    ['a | b 2>&1', false],
    ['a 2> /dev/null', false],
    ['a 2>&1 b', false],
    ['a > out.txt', false],
    ['a &>/dev/null', false],
    ['a - 2>&1', false],
    ['a & b', false],
    ['a |& b', false],
    ['a &&', false],
    ['; a', false],
    ['a ;; b', false],
    ['a\nb', false],
    ['FOO=1 a && b', false],
    ['a && if true', false],
    ['git log --format=x && b', false],
    ['a && b 1%', false],
    ['echo ~', false],
    ['rm *', false],
    ['echo {a,b}', false],
    ['if true', false],
    ['export X=1', false],
    ['X=1', false],
    ['a+=b rm x', false],
    ['9=x rm y', false],
    ['- A= rm y', false],
    ['_=x rm y', false],
  ])('%j needs no parser: %s', (command, plain) => {
    expect(plainScript(command) !== null).toBe(plain);
  });

  it('without the parser, a command that needs it says so', () => {
    expect(() => analyseCommand('echo x > f', { parse: null, cwd: ROOT, home: HOME })).toThrow(/needs the shell parser/);
    expect(analyseCommand('rm -rf src', { parse: null, cwd: ROOT, home: HOME })).toEqual(analyse('rm -rf src'));
  });
});

describe('words, options, sed scripts, places', () => {
  const word = (text: string) => wordValues(parse(`x ${text}`).root.children[0]!.children.find((c) => c.field === 'argument')!, { home: HOME });
  it.each([
    ["'a b'", [lit('a b')]],
    ['"a\\$b"', [lit('a$b')]],
    ['a\\ b', [lit('a b')]],
    ['"$x"', [{ kind: 'dynamic', text: '"$x"' }]],
    ['{a,b}c', [lit('ac'), lit('bc')]],
    ["'{a,b}'", [lit('{a,b}')]],
    ['*.ts', [{ kind: 'glob', pattern: '*.ts' }]],
    ["'*'.ts", [lit('*.ts')]],
    ['a"*"*', [{ kind: 'glob', pattern: 'a\\**' }]],
    ['~', [lit(HOME)]],
    ['~root/x', [{ kind: 'dynamic', text: '~root/x' }]],
    ["$'a'", [lit('a')]],
    ['{1..300}', [{ kind: 'dynamic', text: '{1..300}' }]],
  ])('%s', (text, values) => {
    expect(word(text)).toEqual(values);
  });

  it('options are read the way getopt reads them', () => {
    const s = scanOptions([lit('-rf'), lit('--target-directory=d'), lit('-tX'), lit('a'), lit('--'), lit('-b')], { short: 't', long: ['target-directory'] });
    expect(s.options.map((o) => [o.name, o.value && (o.value as { text: string }).text])).toEqual([['r', null], ['f', null], ['target-directory', 'd'], ['t', 'X']]);
    expect(s.operands).toEqual([lit('a'), lit('-b')]);
  });

  it.each([
    ['s/a/b/g', { writes: [], executes: false, unsure: false }],
    ['1,20p;$d', { writes: [], executes: false, unsure: false }],
    ['/x/w out', { writes: ['out'], executes: false, unsure: false }],
    ['s|a|b|w out', { writes: ['out'], executes: false, unsure: false }],
    ['s/a/b/e', { writes: [], executes: true, unsure: false }],
    ['1e rm -rf src', { writes: [], executes: true, unsure: false }],
    ['/a/,/b/{s/x/y/;p}', { writes: [], executes: false, unsure: false }],
    ['s/unterminated', { writes: [], executes: false, unsure: true }],
    ['k', { writes: [], executes: false, unsure: true }],
  ])('sed script %j', (script, read) => {
    expect(readSedScript(script)).toEqual(read);
  });

  const area = segmentsOf('/p/.agents/tmp/state.json');
  it.each([
    ['/p/.agents/tmp/state.json', false, false, true],
    ['/p/.AGENTS/tmp/State.json', false, false, true],
    ['/p/.agents/tmp', false, false, false],
    ['/p/.agents/tmp', false, true, true],
    ['/p', false, true, true],
    ['/p/src', false, true, false],
    ['/p/.agents/tmp/*', true, false, true],
    ['/p/*/tmp/state.json', true, false, true],
    ['/p/.a*', true, true, true],
    ['/p/s*', true, true, false],
    ['/p/**/state.json', true, false, true],
    ['/p/.agents/tmp/[st]tate.json', true, false, true],
    ['/p/.agents/tmp/[!s]tate.json', true, false, false],
    ['/p/.agents/tmp/state.json/x', false, false, true],
  ])('writing %s (glob %s, recursive %s) touches the state file: %s', (place, glob, recursive, expected) => {
    expect(touches({ segments: segmentsOf(place), glob, recursive }, area)).toBe(expected);
  });
});

describe('what the command sets up for /dev/fd, /dev/stdin and /proc/self (the descriptors of the process that opens a target)', () => {
  /** The descriptors of the first write's process, 0–4, as text. */
  const fdsOf = (command: string): string[] => {
    const w = analyse(command).find((e) => e.kind === 'write');
    if (!w || w.kind !== 'write' || !w.via) throw new Error(`no write in ${command}`);
    return [0, 1, 2, 3, 4].map((fd) => {
      const d = w.via!.fds[fd];
      return !d || d.kind === 'unknown' ? '?' : d.kind === 'stream' ? 'stream' : d.paths.map((p) => (p.startsWith(`${ROOT}/`) ? p.slice(ROOT.length + 1) : p)).join('|');
    });
  };
  // A descriptor any redirection of the command opens (the write's own `>` too) is no longer the tool's stream.
  it.each([
    ['echo x > /dev/fd/3/a', ['stream', '?', 'stream', '?', '?']],
    ['echo x 3<.git > /dev/fd/3/a', ['stream', '?', 'stream', '.git', '?']],
    // Applied left to right: the write comes before the descriptor is opened.
    ['echo x > /dev/fd/3/a 3<.git', ['stream', '?', 'stream', '?', '?']],
    ['echo x 3<.git 4<&3 > /dev/fd/4/a', ['stream', '?', 'stream', '.git', '.git']],
    ['cp a /dev/fd/3/x 3<src/../.agents', ['stream', 'stream', 'stream', 'src/../.agents', '?']],
    ['cat < .git > /dev/stdin/x', ['.git', '?', 'stream', '?', '?']],
    ['cat <<<x > /dev/stdin', ['stream', 'stream', 'stream', '?', '?']],
    ['echo x 2>&1 >/dev/stdout', ['stream', 'stream', 'stream', '?', '?']],
    ['echo x >/dev/null 2>/dev/stderr; echo y > /dev/stdout', ['stream', 'stream', 'stream', '?', '?']],
    // A descriptor moved anywhere in the command is no longer known to be the tool's own stream.
    ['exec 1<.git/config; echo x > /dev/stdout', ['stream', '?', 'stream', '?', '?']],
    ['{ echo x > /dev/stdout; } 1<.git/config', ['stream', '?', 'stream', '?', '?']],
    ['echo y 2>log; echo x > /dev/stderr', ['stream', '?', '?', '?', '?']],
    ['echo x 2>&1 1<.git/config; echo y > /dev/stderr', ['stream', '?', '?', '?', '?']],
  ] as [string, string[]][])('%s → %j', (command, expected) => {
    expect(fdsOf(command)).toEqual(expected);
  });

  it('the redirection of a descriptor the grammar reads as a word (`cp a b 0<.git`) is not read at all', () => {
    expect(analyse('cp /dev/null /dev/fd/0/config 0<.git')).toEqual([{ kind: 'unparseable', why: expect.stringContaining('reads the descriptor') }]);
    expect(analyse('cat a 1>b')).toContainEqual(expect.objectContaining({ kind: 'write', target: { kind: 'path', path: `${ROOT}/b` } }));
  });

  it('keeps `..` for the file system to resolve after links; cd keeps both of bash’s readings', () => {
    expect(writes('echo x > hl/../config')).toEqual(['config']);
    expect(analyse('echo x > hl/../config')).toContainEqual(expect.objectContaining({ target: { kind: 'path', path: `${ROOT}/hl/../config` } }));
    expect(analyse('cd hl/.. && echo x > c').flatMap((e) => (e.kind === 'write' && e.target.kind === 'path' ? [e.target.path] : []))).toEqual([`${ROOT}/c`, `${ROOT}/hl/../c`]);
  });
});

describe('what rebinds a command name, refused', () => {
  it.each([
    'BASH_CMDS[cat]=/bin/rm; cat x',
    'BASH_CMDS=([cat]=/bin/rm); cat x',
    "declare 'BASH_CMDS[cat]=/bin/rm'",
    'B"ASH_CMDS"[cat]=/bin/rm; cat x',
    "shopt -s expand_aliases; BASH_ALIASES[cat]='rm -f'",
    "env 'BASH_FUNC_cat%%=() { rm -f x; }' bash -c cat",
    "bash -c 'BASH_CMDS[ls]=/bin/rm; ls x'",
    'hash -p /bin/rm cat',
    'enable -f ./evil.so cat',
    'enable -f /usr/lib/bash/sleep sleep',
    'LD_PRELOAD=./x.so cat y',
    'printf -v "$n" %s /bin/rm',
    'read -r "$n" <<< /bin/rm',
    'mapfile "$a" < list',
    'declare "$n=/bin/rm"',
    'command declare "$n=/bin/rm"',
    'export "$n=x"',
    ': ${!n:=/bin/rm}',
  ])('%s', (command) => {
    expect(analyse(command)).toContainEqual(expect.objectContaining({ kind: 'opaque', why: expect.stringMatching(/^(?:rebinds-command|dynamic-command)$/) }));
  });
  it.each(['printf -v out %s x', 'read -r line < f', 'declare -a arr=(1 2)', 'enable -n echo', 'hash -r', 'export FOO=1; npm test'])('%s passes', (command) => {
    expect(analyse(command).filter((e) => e.kind === 'opaque')).toEqual([]);
  });
});

describe('gawk extensions edit their operands in place', () => {
  it.each([
    ["gawk -i inplace '{print}' f", ['f']],
    ["gawk -i /usr/share/awk/inplace.awk '{print}' f", ['f']],
    ["gawk -i ./copy.awk '{print}' f g", ['f', 'g']],
    ["gawk --include=getopt '{print}' f", ['f']],
    ["gawk -l inplace -f prog.awk f", ['f']],
    ["gawk --load=./x.so '{print}' f", ['f']],
    ["gawk '@include \"inplace\"; {print}' f", ['f']],
    ["gawk '@load \"inplace\"\n{print}' f", ['f']],
    ["awk '{print}' f", []],
    ['awk -f prog.awk f', []],
  ] as [string, string[]][])('%j → %j', (command, expected) => {
    expect(writes(command)).toEqual(expected);
  });
});
