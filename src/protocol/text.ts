/** Plain text helpers every floor may use. Pure. */
import { sanitize } from './sanitize';

/** A whole number with thousands separators: 12,345. */
export const thousands = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');

export const PREFIX = 'minions:';

export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** A file name as the prompts show it: project files are named by whoever made them (escapes, bidi, `[PHASE` in a name). */
const fileName = (name: string): string => truncate(name, 200);

export const fileNames = (names: readonly string[]): string => names.map(fileName).join(', ');

/** One line of at most `max` characters, made safe to show (see protocol/sanitize.ts): every piece of model or user text goes through it. */
export const truncate = (text: string, max: number): string => sanitize(text, { max });
