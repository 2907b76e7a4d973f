/**
 * The zod every schema of the plugin is built with: `zod/mini`, whose functions tree-shake and whose
 * schemas carry no methods, so a hook process builds and checks its few schemas in a fraction of the
 * time the classic API takes (bench/hooks.bench.ts). English messages, as the classic API has them.
 * `jitless`: each hook parses a schema once, so compiling a fast path first would cost more than it saves.
 *
 * Schema modules import `* as z from 'zod/mini'` themselves (a namespace re-exported from here would
 * bundle all of zod) and their helpers from here, which configures zod before anything is parsed.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config({ ...en(), jitless: true });

/** A whole number ≥ 0. */
export const count = (): z.ZodMiniNumberFormat => z.int().check(z.nonnegative());
/** A whole number ≥ 1. */
export const positiveInt = (): z.ZodMiniNumberFormat => z.int().check(z.positive());
/** The schema with a description (the classic API's `.describe`), which the JSON Schema files carry. */
export const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.describe(description)) as T;
/** Runs `fn` on the input before `schema` checks it (the classic API's `z.preprocess`). */
export const preprocess = <T extends z.core.$ZodType>(fn: (value: unknown) => unknown, schema: T): z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, T> =>
  z.pipe(z.transform(fn), schema);

/** A zod error as one line: `path: message; …` (the first eight issues). */
export function describeZodError(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => {
      const where = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') : '(top level)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}
