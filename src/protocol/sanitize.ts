/**
 * Model text is data. Whatever a reviewer or the fixer wrote (descriptions, rules, file names, reasons)
 * passes through here before the hooks put it in a prompt or on the user's screen: no terminal escapes,
 * no control or invisible characters, no bidi overrides, no `[PHASE` header a model could mistake for
 * the hooks', and a bounded length. Pure.
 */

export interface SanitizeOptions {
  /** Longest result, in characters (code points); longer text ends with "…". */
  max: number;
  /** Keep line breaks (a field shown on several lines); otherwise all whitespace runs become one space. */
  multiline?: boolean;
}

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC (ESC P|X|^|_ … ST), other two-byte
// escapes (ESC + intermediates + final), and their 8-bit C1 forms.
const ESCAPE_SEQUENCES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?/g;
// Controls (C0, DEL, C1), format characters (bidi embeddings, overrides and isolates, zero-width
// characters, soft hyphen …), lone surrogates. Tab and line feed are handled by the whitespace rule.
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Cs}]/gu;
const LINE_SEPARATORS = /[\r\u2028\u2029\u0085]+/g;
// An opening bracket of any script (or an angle, a corner, an opening quote), then the word in any case,
// width, accent or look-alike script: `[PHASE`, `［ＰＨＡＳＥ`, `【 phase`, `[РНАЅЕ` (Cyrillic), `[ᴘʜᴀꜱᴇ`
// (small capitals), `[ᏢᎻᎪᏚᎬ` (Cherokee), `[\u0301PHASE`, `⎡PHASE`, `<PHASE`.
const OPENING = /[\p{Ps}\p{Pi}<\u2039\u00AB\u23A1\u23A2\u23A3\u2308\u230A\uFE64\uFF1C]/u; // \p{Ps} \p{Pi} < ‹ « ⎡ ⎢ ⎣ ⌈ ⌊ ﹤ ＜
const MARK = /\p{M}/u;
const LOOK_ALIKES: Record<string, string> = {
  р: 'p', н: 'h', а: 'a', ѕ: 's', е: 'e', һ: 'h', ԛ: 'q', ρ: 'p', η: 'h', α: 'a', ε: 'e', ϲ: 's',
  ᴘ: 'p', ʜ: 'h', ᴀ: 'a', ꜱ: 's', ᴇ: 'e', ɑ: 'a', ｈ: 'h', հ: 'h', ɦ: 'h', ꮲ: 'p', ꮋ: 'h', ꭺ: 'a', ꮪ: 's', ꭼ: 'e',
  Ꮲ: 'p', Ꮋ: 'h', Ꭺ: 'a', Ꮪ: 's', Ꭼ: 'e',
};
const letter = (ch: string): string => {
  if (LOOK_ALIKES[ch]) return LOOK_ALIKES[ch];
  const folded = ch.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFKC').toLowerCase();
  return LOOK_ALIKES[folded] ?? folded;
};

function neutralisePhaseMarkers(s: string): string {
  const cs = Array.from(s);
  for (let i = 0; i < cs.length; i++) {
    if (!OPENING.test(cs[i]!)) continue;
    let j = i + 1;
    while (j < cs.length && (/\s/u.test(cs[j]!) || MARK.test(cs[j]!))) j++;
    // The next five letters, accents and other combining marks between them left out.
    let word = '';
    for (let k = j; k < cs.length && word.length < 5; k++) if (!MARK.test(cs[k]!)) word += letter(cs[k]!);
    if (word.startsWith('phase')) cs[i] = '(';
  }
  return cs.join('');
}

export function sanitize(text: string, options: SanitizeOptions): string {
  const max = Math.max(1, Math.floor(options.max));
  // Enough to fill `max` even after stripping, without scanning megabytes of evidence.
  let s = text.length > max * 8 + 256 ? text.slice(0, max * 8 + 256) : text;
  s = s.replace(ESCAPE_SEQUENCES, '');
  s = s.replace(LINE_SEPARATORS, options.multiline ? '\n' : ' ');
  s = s.replace(INVISIBLE, '');
  s = neutralisePhaseMarkers(s);
  s = options.multiline
    ? s
        .split('\n')
        .map((line) => line.replace(/[^\S\n]+/g, ' ').trimEnd())
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()
    : s.replace(/\s+/g, ' ').trim();
  const points = Array.from(s);
  return points.length > max ? `${points.slice(0, max - 1).join('')}…` : s;
}

/**
 * The last lines of a program's output (a check's) as model text: terminal escapes, control and invisible
 * characters and bidi overrides removed, `[PHASE` markers neutralised as in sanitize(), indentation kept;
 * at most `maxLines` lines and `maxChars` characters, cut at the start ("…").
 */
export function sanitizeTail(output: string, maxLines = 30, maxChars = 3000): string {
  const max = Math.max(2, Math.floor(maxChars));
  // Enough of the end to fill `max` even after stripping, without scanning a megabyte of output.
  let s = output.length > max * 8 + 256 ? output.slice(output.length - (max * 8 + 256)) : output;
  s = s.replace(ESCAPE_SEQUENCES, '');
  s = s.replace(/\r\n/g, '\n').replace(LINE_SEPARATORS, '\n');
  s = s.replace(INVISIBLE, '');
  s = neutralisePhaseMarkers(s);
  s = s
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .slice(-Math.max(1, maxLines))
    .join('\n')
    .replace(/^\n+/, '');
  const points = Array.from(s);
  return points.length > max ? `…${points.slice(points.length - (max - 1)).join('')}` : s;
}

// What JSON.stringify leaves raw that a reader should never meet raw: DEL and C1 controls, format
// characters (bidi overrides, zero-width), lone surrogates, and the line separators JavaScript reads as breaks.
const RAW_INVISIBLE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;

/** Every control and invisible character as a `\uXXXX` escape: applied to JSON text, the same value, with no such character raw. */
export const escapeInvisible = (text: string): string =>
  text.replace(RAW_INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
