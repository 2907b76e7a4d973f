/**
 * The simulated project: real files of numbered lines, with planted defects, suspicious-but-correct
 * spots (decoys), and whatever the loop adds: false positives and nits the reviewers invent, defects
 * the fixer introduces. Every change rewrites a line, so the core grounds each finding against the
 * files as they are now.
 */
import { CATEGORIES, PROJECT, type Category } from './params';
import type { Rng } from './rng';
import type { Sources } from '../src/review/grounding';

export type SpotKind = 'planted' | 'regression' | 'decoy' | 'false-positive' | 'nit';
export type Severity = 'critical' | 'warning' | 'info';

export interface Spot {
  id: string;
  kind: SpotKind;
  file: string;
  line: number;
  category: Category | 'style';
  severity: Severity;
  /** A real defect still in the code (planted or regression). */
  live: boolean;
}

export class World {
  readonly files = new Map<string, string[]>();
  readonly spots: Spot[] = [];
  private revisions = 0;

  constructor(readonly rng: Rng) {
    for (let f = 1; f <= PROJECT.files; f++) {
      const file = `src/module${f}.ts`;
      const lines = [`// module ${f}`];
      for (let l = 2; l <= PROJECT.lines; l++) lines.push(`  const ${word(f * 100 + l)} = ${word(l)}Step(${word(f * 100 + l - 1)}, ${(f * 31 + l * 7) % 97});`);
      this.files.set(file, lines);
    }
    for (let i = 0; i < PROJECT.defects; i++) this.add('planted', this.rng.pick(CATEGORIES), this.realSeverity());
    for (let i = 0; i < PROJECT.decoys; i++) this.add('decoy', this.rng.pick(CATEGORIES), 'warning');
  }

  realSeverity(): Severity {
    return this.rng.chance(0.3) ? 'critical' : 'warning';
  }

  /** A spot on a line no other spot holds (near `near` when given). */
  add(kind: SpotKind, category: Spot['category'], severity: Severity, near?: { file: string; line: number }): Spot {
    const taken = (file: string, line: number) => this.spots.some((s) => s.file === file && s.line === line && (s.live || s.kind === 'decoy'));
    let file = near?.file ?? this.rng.pick([...this.files.keys()]);
    let line = 0;
    for (let tries = 0; tries < 50; tries++) {
      line = near ? Math.min(PROJECT.lines, Math.max(2, near.line + this.rng.int(11) - 5)) : 2 + this.rng.int(PROJECT.lines - 1);
      if (!taken(file, line)) break;
      if (tries === 25) file = this.rng.pick([...this.files.keys()]);
    }
    const spot: Spot = { id: `${kind}-${this.spots.length}`, kind, file, line, category, severity, live: kind === 'planted' || kind === 'regression' };
    this.spots.push(spot);
    return spot;
  }

  text(file: string, line: number): string {
    return this.files.get(file)![line - 1]!;
  }

  /** The fixer changes a line: it reads differently from now on. */
  rewrite(file: string, line: number): void {
    const lines = this.files.get(file)!;
    lines[line - 1] = `${lines[line - 1]!.replace(/ \/\/ rev \d+$/, '')} // rev ${++this.revisions}`;
  }

  sources(): Sources {
    const out: Sources = {};
    for (const [file, lines] of this.files) out[file] = { kind: 'file', text: `${lines.join('\n')}\n` };
    return out;
  }

  live(kind?: SpotKind): Spot[] {
    return this.spots.filter((s) => s.live && (kind === undefined || s.kind === kind));
  }
}

/**
 * A name of letters for a number: every line of the simulated files has identifiers of its own, as real code
 * does. (Names told apart only by digits would give every line one class shape, which masks digits: one
 * finding class per category family, which no real project has.)
 */
function word(n: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}
