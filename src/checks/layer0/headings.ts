/**
 * Markdown's ATX headings (a line starting with #) outside code fences, each keyed by its level, its
 * text and its parent headings. Only lines starting with #, ``` or ~~~ are looked at (found with
 * indexOf, or known from a prose scan), and a scan can stop and resume: its state is the open fence and
 * the parent headings. A new file's repeated headings are found with hashed keys (repeatedHeadings).
 */

const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;

export interface Heading {
  key: string;
  title: string;
  index: number;
}

/** Between lines: the fence open (``` or ~~~) and the lower-case titles of the parents ('' for a skipped level). */
export interface HeadingState {
  fence: string | null;
  parents: string[];
}

export const startState = (): HeadingState => ({ fence: null, parents: [] });
export const copyState = (s: HeadingState): HeadingState => ({ fence: s.fence, parents: [...s.parents] });
export const sameState = (a: HeadingState, b: HeadingState): boolean => a.fence === b.fence && a.parents.length === b.parents.length && a.parents.every((p, k) => p === b.parents[k]);

const MARKS = ['\n#', '\n```', '\n~~~'];

/**
 * The level of a heading that HEADING reads as its level and the rest of the line after one space,
 * already normalised (1 to 6 #, one space, then printable ASCII words with single spaces between, not
 * ending in #), or 0 when the regex must read it.
 */
export const simpleHeading = (line: string): number => simpleHeadingAt(line, 0, line.length);

/** simpleHeading of the line text[at, end) (end: the text's end, or at a line break). */
function simpleHeadingAt(text: string, at: number, end: number): number {
  let level = 0;
  while (at + level < end && text.charCodeAt(at + level) === 0x23) level += 1;
  if (level === 0 || level > 6 || at + level === end || text.charCodeAt(at + level) !== 0x20 || end === at + level + 1) return 0;
  let space = true;
  for (let k = at + level + 1; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x20) {
      if (space) return 0;
      space = true;
    } else if (c < 0x21 || c > 0x7e) return 0;
    else space = false;
  }
  return space || text.charCodeAt(end - 1) === 0x23 ? 0 : level;
}

/** Where the next line that may hold a heading or a fence starts. */
export interface MarkedLines {
  /** The first line start at or after pos whose line starts with #, ``` or ~~~ (−1: none). */
  next(pos: number): number;
}

/**
 * The next line start with each mark, looked for with indexOf and kept: the scans of one text, one after
 * another, search for each mark once (a mark the text lacks is not looked for again to its end).
 */
export class Marks implements MarkedLines {
  /** Per mark: the first line start with it at or after searched[k] (−1: none), or −2 not looked for yet. */
  private readonly nexts = [-2, -2, -2];
  private readonly searched = [0, 0, 0];
  constructor(private readonly text: string) {}

  /** The first line start at or after pos whose line starts with mark k (−1: none). */
  at(k: number, pos: number): number {
    const n = this.nexts[k]!;
    if (n !== -2 && pos >= this.searched[k]! && (n === -1 || n >= pos)) return n;
    const i = this.text.indexOf(MARKS[k]!, Math.max(0, pos - 1));
    this.searched[k] = pos;
    return (this.nexts[k] = i === -1 ? -1 : i + 1);
  }

  next(pos: number): number {
    let index = -1;
    for (let k = 0; k < MARKS.length; k++) {
      const n = this.at(k, pos);
      if (n !== -1 && (index === -1 || n < index)) index = n;
    }
    return index;
  }
}

/** MarkedLines from the list of those lines' starts, in order (a prose scan found them). */
export class KnownMarks implements MarkedLines {
  private cursor = 0;
  constructor(private readonly starts: readonly number[]) {}

  next(pos: number): number {
    const { starts } = this;
    if (this.cursor > 0 && starts[this.cursor - 1]! >= pos) {
      // Back: the first start at or after pos, by binary search.
      let lo = 0;
      let hi = this.cursor - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (starts[mid]! < pos) lo = mid + 1;
        else hi = mid;
      }
      this.cursor = lo;
    }
    while (this.cursor < starts.length && starts[this.cursor]! < pos) this.cursor += 1;
    return this.cursor < starts.length ? starts[this.cursor]! : -1;
  }
}

/** The headings of the lines of text that start in [from, to), from `state` (which is updated); `marks` of the same text. */
export function headingsIn(text: string, from: number, to: number, state: HeadingState, marks: MarkedLines = new Marks(text)): Heading[] {
  const out: Heading[] = [];
  // The text's first line has no newline before it.
  let atStart = from === 0 && (text.startsWith('#') || text.startsWith('```') || text.startsWith('~~~'));
  let pos = from;
  for (;;) {
    const index = atStart ? 0 : marks.next(pos);
    atStart = false;
    if (index === -1 || index >= to) break;
    pos = index + 1;
    const nl = text.indexOf('\n', index);
    let end = nl === -1 ? text.length : nl;
    if (end > index && text.charCodeAt(end - 1) === 0x0d) end -= 1;
    const line = text.slice(index, end);
    if (line.startsWith('```') || line.startsWith('~~~')) {
      if (state.fence === null) state.fence = line.slice(0, 3);
      else if (line.startsWith(state.fence)) state.fence = null;
      continue;
    }
    if (state.fence !== null) continue;
    const simple = simpleHeading(line);
    let level = simple;
    let title = simple > 0 ? line.slice(simple + 1) : '';
    if (simple === 0) {
      const m = HEADING.exec(line);
      if (!m) continue;
      level = m[1]!.length;
      title = (m[2] ?? '').replace(/\s+/g, ' ').trim();
    }
    const lower = title.toLowerCase();
    const { parents } = state;
    parents.length = Math.min(parents.length, level - 1);
    while (parents.length < level - 1) parents.push('');
    out.push({ key: `${parents.join('\u0001')}\u0000${level}\u0000${lower}`, title, index });
    parents.push(lower);
  }
  return out;
}

/** Every heading of a text. */
export const headings = (text: string): Heading[] => headingsIn(text, 0, text.length, startState());

/** FNV-1a, one UTF-16 unit at a time: a heading's key is hashed as the string it is, while it is read. */
const feed = (h: number, c: number): number => Math.imul(h ^ c, 0x01000193);
const FNV_START = 0x811c9dc5 | 0;
/** The fields of a heading's row in repeatedHeadings. */
const [AT, LEVEL, FROM, TO, UP, HASH, ROW] = [0, 1, 2, 3, 4, 5, 6];

/**
 * The headings of a whole text that share their key with another, in groups (each in text order, the
 * groups in the order of their first heading): what grouping headingsIn's headings by key gives, minus
 * the headings whose key is unique. No key or title is built while the text is read: each key is
 * hashed as the string it would be (its parents' titles, level and title, from the text's characters;
 * a title the regex reads is sliced), and only the headings whose hash another shares get their key
 * built and compared.
 */
export function repeatedHeadings(text: string, marks: MarkedLines): Heading[][] {
  // Per heading, a row of ROW numbers (AT its line's start, its LEVEL, its title text[FROM, TO), UP: the
  // heading below it among its parents, its key's HASH), and its title and lower-case title when the
  // regex read them (else null): typed rows, nothing for the collector to trace.
  let rows = new Int32Array(ROW * 256);
  let n = 0;
  const oddTitle: (string | null)[] = [];
  const oddLower: (string | null)[] = [];
  // The parents, as in HeadingState: per level below, the nearest heading at or below it (−1: none) and the hash of the parents joined up to it.
  const upAt = new Int32Array(6);
  const joined = new Int32Array(6);
  let depth = 0;
  let fence = 0;
  let atStart = text.startsWith('#') || text.startsWith('```') || text.startsWith('~~~');
  for (let pos = 0; ; ) {
    const at = atStart ? 0 : marks.next(pos);
    atStart = false;
    if (at === -1) break;
    pos = at + 1;
    const nl = text.indexOf('\n', at);
    let end = nl === -1 ? text.length : nl;
    if (end > at && text.charCodeAt(end - 1) === 0x0d) end -= 1;
    const c0 = text.charCodeAt(at);
    if ((c0 === 0x60 || c0 === 0x7e) && text.charCodeAt(at + 1) === c0 && text.charCodeAt(at + 2) === c0) {
      if (fence === 0) fence = c0;
      else if (c0 === fence) fence = 0;
      continue;
    }
    if (fence !== 0 || c0 !== 0x23) continue;
    const id = n;
    let lv = simpleHeadingAt(text, at, end);
    let lower: string | null = null;
    if (lv === 0) {
      const m = HEADING.exec(text.slice(at, end));
      if (!m) continue;
      lv = m[1]!.length;
      const title = (m[2] ?? '').replace(/\s+/g, ' ').trim();
      lower = title.toLowerCase();
      oddTitle.push(title);
      oddLower.push(lower);
    }
    // The parents: cut to the level above, then skipped levels filled with ''.
    if (depth > lv - 1) depth = lv - 1;
    while (depth < lv - 1) {
      upAt[depth] = depth > 0 ? upAt[depth - 1]! : -1;
      joined[depth] = depth > 0 ? feed(joined[depth - 1]!, 1) : FNV_START;
      depth += 1;
    }
    // The key: the parents joined by \u0001, \u0000, the level, \u0000, the lower-case title.
    const parents = depth > 0 ? joined[depth - 1]! : FNV_START;
    let key = feed(feed(feed(parents, 0), 0x30 + lv), 0);
    // This heading as a parent: the parents, \u0001 unless it is the first, its lower-case title.
    let asParent = depth > 0 ? feed(parents, 1) : FNV_START;
    const ts = at + lv + 1;
    if (lower === null) {
      for (let k = ts; k < end; k++) {
        let c = text.charCodeAt(k);
        if (c >= 0x41 && c <= 0x5a) c |= 0x20;
        key = feed(key, c);
        asParent = feed(asParent, c);
      }
    } else {
      for (let k = 0; k < lower.length; k++) {
        key = feed(key, lower.charCodeAt(k));
        asParent = feed(asParent, lower.charCodeAt(k));
      }
    }
    if (lower === null) {
      oddTitle.push(null);
      oddLower.push(null);
    }
    if (ROW * (n + 1) > rows.length) {
      const more = new Int32Array(2 * rows.length);
      more.set(rows);
      rows = more;
    }
    const r = ROW * n;
    rows[r + AT] = at;
    rows[r + LEVEL] = lv;
    rows[r + FROM] = ts;
    rows[r + TO] = end;
    rows[r + UP] = depth > 0 ? upAt[depth - 1]! : -1;
    rows[r + HASH] = key;
    n += 1;
    upAt[depth] = id;
    joined[depth] = asParent;
    depth += 1;
  }
  // Headings grouped by hash (open addressing), then the shared hashes' groups by their keys.
  const size = 1 << (32 - Math.clz32(Math.max(16, 2 * n)));
  const table = new Int32Array(size);
  const first = new Int32Array(n);
  const count = new Int32Array(n);
  let shared = false;
  for (let id = 0; id < n; id++) {
    const h = rows[ROW * id + HASH]!;
    let slot = Math.imul(h, 0x9e3779b1) >>> (32 - Math.log2(size));
    while (table[slot] !== 0 && rows[ROW * (table[slot]! - 1) + HASH] !== h) slot = (slot + 1) & (size - 1);
    if (table[slot] === 0) {
      table[slot] = id + 1;
      first[id] = id;
      count[id] = 1;
    } else {
      first[id] = table[slot]! - 1;
      shared = (count[first[id]!]! += 1) > 1 || shared;
    }
  }
  if (!shared) return [];
  const level = (id: number): number => rows[ROW * id + LEVEL]!;
  const titleOf = (id: number): string => oddTitle[id] ?? text.slice(rows[ROW * id + FROM]!, rows[ROW * id + TO]!);
  const lowerOf = (id: number): string => oddLower[id] ?? titleOf(id).toLowerCase();
  // A heading's parents joined, as headingsIn joins them: the joined parents of the heading below it
  // among them (once per such heading), its title, then a '' per skipped level.
  const joinedAsParent = new Map<number, string>();
  const asParent = (g: number): string => {
    let joined = joinedAsParent.get(g);
    if (joined === undefined) {
      joined = level(g) > 1 ? `${parentsJoined(g)}\u0001${lowerOf(g)}` : lowerOf(g);
      joinedAsParent.set(g, joined);
    }
    return joined;
  };
  const parentsJoined = (id: number): string => {
    const g = rows[ROW * id + UP]!;
    return g === -1 ? '\u0001'.repeat(Math.max(0, level(id) - 2)) : asParent(g) + '\u0001'.repeat(level(id) - 1 - level(g));
  };
  const keyOf = (id: number): string => `${parentsJoined(id)}\u0000${level(id)}\u0000${lowerOf(id)}`;
  const groups = new Map<string, Heading[]>();
  for (let id = 0; id < n; id++) {
    if (count[first[id]!]! < 2) continue;
    const key = keyOf(id);
    const heading = { key, title: titleOf(id), index: rows[ROW * id + AT]! };
    const same = groups.get(key);
    if (same) same.push(heading);
    else groups.set(key, [heading]);
  }
  return [...groups.values()].filter((hs) => hs.length > 1);
}
