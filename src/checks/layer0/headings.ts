/**
 * Markdown's ATX headings (a line starting with #) outside code fences, each keyed by its level, its
 * text and its parent headings. Only lines starting with #, ``` or ~~~ are looked at (found with
 * indexOf), and a scan can stop and resume: its state is the open fence and the parent headings.
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
export function simpleHeading(line: string): number {
  let level = 0;
  while (level < line.length && line.charCodeAt(level) === 0x23) level += 1;
  if (level === 0 || level > 6 || line.charCodeAt(level) !== 0x20 || line.length === level + 1) return 0;
  let space = true;
  for (let k = level + 1; k < line.length; k++) {
    const c = line.charCodeAt(k);
    if (c === 0x20) {
      if (space) return 0;
      space = true;
    } else if (c < 0x21 || c > 0x7e) return 0;
    else space = false;
  }
  return space || line.charCodeAt(line.length - 1) === 0x23 ? 0 : level;
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
