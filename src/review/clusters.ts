/**
 * Which reports are one defect, in time about linear in the number of reports: keys are compared only
 * within their file and category family, and "one quote contains the other" is found through an index
 * of MIN_CONTAINED-long windows instead of comparing every pair. Pure.
 */
import { MIN_CONTAINED, type IdentityKey } from './fingerprint';

const BASE = 131;
const TOP = (() => {
  let p = 1;
  for (let i = 1; i < MIN_CONTAINED; i++) p = Math.imul(p, BASE);
  return p;
})();

/** Calls visit(hash, position) for every MIN_CONTAINED-long window of text (a rolling hash). */
function forEachWindow(text: string, visit: (hash: number, position: number) => void): void {
  if (text.length < MIN_CONTAINED) return;
  let h = prefixHash(text);
  for (let i = MIN_CONTAINED; ; i++) {
    visit(h, i - MIN_CONTAINED);
    if (i === text.length) return;
    h = (Math.imul(h - Math.imul(text.charCodeAt(i - MIN_CONTAINED), TOP), BASE) + text.charCodeAt(i)) | 0;
  }
}

function prefixHash(text: string): number {
  let h = 0;
  for (let i = 0; i < MIN_CONTAINED; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Texts, numbered in the order added, searchable by containment (the short one at least MIN_CONTAINED long). */
class TextIndex {
  readonly texts: string[] = [];
  private readonly exact = new Map<string, number>();
  private readonly prefixes = new Map<number, number[]>();
  private windows: Map<number, [number, number][]> | null = null;

  add(text: string): number {
    const id = this.texts.push(text) - 1;
    if (!this.exact.has(text)) this.exact.set(text, id);
    if (text.length >= MIN_CONTAINED) push(this.prefixes, prefixHash(text), id);
    if (this.windows) forEachWindow(text, (h, pos) => push(this.windows!, h, [id, pos]));
    return id;
  }

  /** The first text equal to this one. */
  same(text: string): number | undefined {
    return this.exact.get(text);
  }

  /** Texts (other than equal ones) that occur inside this one. */
  within(text: string, visit: (id: number) => void): void {
    if (text.length < MIN_CONTAINED || this.prefixes.size === 0) return;
    let h = prefixHash(text);
    for (let i = MIN_CONTAINED; ; i++) {
      const ids = this.prefixes.get(h);
      if (ids !== undefined) {
        for (const id of ids) {
          const other = this.texts[id]!;
          if (other.length < text.length && text.startsWith(other, i - MIN_CONTAINED)) visit(id);
        }
      }
      if (i === text.length) return;
      h = (Math.imul(h - Math.imul(text.charCodeAt(i - MIN_CONTAINED), TOP), BASE) + text.charCodeAt(i)) | 0;
    }
  }

  /** Texts (other than equal ones) this one occurs inside. */
  containing(text: string, visit: (id: number) => void): void {
    if (text.length < MIN_CONTAINED) return;
    if (!this.windows) {
      this.windows = new Map();
      this.texts.forEach((t, id) => forEachWindow(t, (h, pos) => push(this.windows!, h, [id, pos])));
    }
    for (const [id, pos] of this.windows.get(prefixHash(text)) ?? NONE) {
      const other = this.texts[id]!;
      if (other.length > text.length && other.startsWith(text, pos)) visit(id);
    }
  }
}

const NONE: [number, number][] = [];
const bucketOf = (key: IdentityKey): string => `${key.file}\0${key.family}`;

/**
 * A bucket with at most this many distinct texts compares each text with every shorter one (`includes`,
 * V8's native search); a larger one goes through a TextIndex of windows, linear in its total length.
 */
export const DIRECT_TEXTS = 256;

/**
 * Groups the reports of one defect: the same file and family, and the same evidence or one quote
 * containing the other. A quote that contains the evidence of two or more distinct defects (one
 * reviewer quoting lines 1–5 while others report lines 2, 3 and 4) joins none of them. Returns groups
 * of indices into `keys`, each in reporting order, ordered by their first report.
 */
export function clusterKeys(keys: readonly IdentityKey[], direct = DIRECT_TEXTS): number[][] {
  const parent = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) parent[i] = i;
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[i] !== root) {
      const next = parent[i]!;
      parent[i] = root;
      i = next;
    }
    return root;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };

  // One node per distinct text of a file and family (the first report of it); later reports of the same text join it.
  const buckets = new Map<string, Map<string, Map<string, number>>>();
  for (let i = 0; i < keys.length; i++) {
    const { file, family, text } = keys[i]!;
    let byFamily = buckets.get(file);
    if (!byFamily) buckets.set(file, (byFamily = new Map()));
    let nodes = byFamily.get(family);
    if (!nodes) byFamily.set(family, (nodes = new Map()));
    const first = nodes.get(text);
    if (first === undefined) nodes.set(text, i);
    else union(first, i);
  }
  for (const byFamily of buckets.values()) {
    for (const nodes of byFamily.values()) {
      if (nodes.size === 1) continue;
      // Shorter texts first, so a quote meets every quote it contains already grouped.
      const texts = [...nodes.keys()].sort((a, b) => a.length - b.length);
      if (texts.length <= direct) joinDirect(texts, nodes, find, union);
      else joinIndexed(texts, nodes, find, union);
    }
  }

  const groups = new Map<number, number[]>();
  for (let i = 0; i < keys.length; i++) push(groups, find(i), i);
  return [...groups.values()];
}

type Find = (i: number) => number;
type Union = (a: number, b: number) => void;

/** Each text joins the one group of the shorter texts it contains (none when they are two or more groups). */
function joinDirect(texts: readonly string[], nodes: ReadonlyMap<string, number>, find: Find, union: Union): void {
  for (let t = 1; t < texts.length; t++) {
    const text = texts[t]!;
    if (text.length <= MIN_CONTAINED) continue;
    let only = -1; // the one group it contains (-1: none yet; -2: two or more)
    for (let s = 0; s < t && only !== -2; s++) {
      const other = texts[s]!;
      if (other.length < MIN_CONTAINED || other.length === text.length || !text.includes(other)) continue;
      const root = find(nodes.get(other)!);
      if (only === -1) only = root;
      else if (only !== root) only = -2;
    }
    if (only >= 0) union(nodes.get(text)!, only);
  }
}

function joinIndexed(texts: readonly string[], nodes: ReadonlyMap<string, number>, find: Find, union: Union): void {
  const index = new TextIndex();
  const report: number[] = [];
  for (const text of texts) {
    const node = nodes.get(text)!;
    let only = -1;
    index.within(text, (id) => {
      const root = find(report[id]!);
      if (only === -1) only = root;
      else if (only !== root) only = -2;
    });
    if (only >= 0) union(node, only);
    report[index.add(text)] = node;
  }
}

/** Earlier findings by identity: the first added that is the same defect as a key (sameDefect). */
export class IdentityIndex<T> {
  private readonly buckets = new Map<string, { index: TextIndex; values: T[]; order: number[] }>();
  private added = 0;

  /** How many were added. */
  get size(): number {
    return this.added;
  }

  add(key: IdentityKey, value: T): void {
    let bucket = this.buckets.get(bucketOf(key));
    if (!bucket) this.buckets.set(bucketOf(key), (bucket = { index: new TextIndex(), values: [], order: [] }));
    bucket.index.add(key.text);
    bucket.values.push(value);
    bucket.order.push(this.added++);
  }

  first(key: IdentityKey): T | undefined {
    const bucket = this.buckets.get(bucketOf(key));
    if (!bucket) return undefined;
    let best = bucket.index.same(key.text);
    const consider = (id: number) => {
      if (best === undefined || bucket.order[id]! < bucket.order[best]!) best = id;
    };
    bucket.index.within(key.text, consider);
    bucket.index.containing(key.text, consider);
    return best === undefined ? undefined : bucket.values[best];
  }
}
