/**
 * Does a write reach a protected place? Paths are compared segment by segment; a glob segment matches
 * as bash would with every option that widens it on (dotglob, globstar, nocaseglob), since the user's
 * shell may set them.
 */

/** A written place, as absolute path segments; glob segments keep their pattern. */
export interface Place {
  segments: string[];
  glob: boolean;
  /** Anything below it may be written too (rm -r, mv, find -delete). */
  recursive: boolean;
}

export const segmentsOf = (absolute: string): string[] => absolute.split('/').filter(Boolean);

function segmentRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) re += escape(pattern[++i]!);
    else if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      // A bracket expression stands for one character. Where its members are not worked out (POSIX
      // classes `[[:alpha:]]`, a `]` first in it) it is any character, so a write is never thought to miss.
      const close = bracketEnd(pattern, i);
      if (close === -1) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        // A plain set is matched as it stands; classes and a leading `]` stand for any character.
        re += /\[[:=.]|^\]/.test(body) ? '.' : `[${negated ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]')}]`;
        i = close;
      }
    } else re += escape(ch);
  }
  return new RegExp(`^${re}$`, 'is');
}
/** The index of the `]` closing the bracket expression opened at `open`, or -1 (then `[` is itself). */
function bracketEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a `]` first is a member
  for (; i < pattern.length; i++) {
    if (pattern[i] === '[' && (pattern[i + 1] === ':' || pattern[i + 1] === '=' || pattern[i + 1] === '.')) {
      const end = pattern.indexOf(`${pattern[i + 1]}]`, i + 2);
      if (end === -1) return -1;
      i = end + 1;
    } else if (pattern[i] === ']') return i;
  }
  return -1;
}
const escape = (ch: string): string => ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const segmentMatches = (pattern: string, name: string, glob: boolean): boolean =>
  glob ? segmentRegex(pattern).test(name) : pattern.toLowerCase() === name.toLowerCase();

/**
 * True when writing `place` can change `area` (absolute segments): the place is the area, lies under
 * it, or (when recursive) contains it. Case is ignored, as on macOS's default file system.
 */
export function touches(place: Place, area: readonly string[]): boolean {
  const g = place.segments;
  const memo = new Map<string, boolean>();
  const rel = (gi: number, si: number): boolean => {
    const key = `${gi},${si}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (gi === g.length) result = si === area.length || place.recursive; // the place is the area or one of its ancestors
    else if (si === area.length) result = true; // the place lies under the area
    else if (place.glob && g[gi] === '**') result = rel(gi + 1, si) || rel(gi, si + 1);
    else result = segmentMatches(g[gi]!, area[si]!, place.glob) && rel(gi + 1, si + 1);
    memo.set(key, result);
    return result;
  };
  return rel(0, 0);
}
