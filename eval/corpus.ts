/** The planted-defect corpus: eval/corpus/<project>/ holds the code and eval.json (the answers, never shown to a model). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const CATEGORIES = ['logic', 'security', 'error-handling', 'concurrency', 'api-misuse'] as const;
export type Category = (typeof CATEGORIES)[number];

const Range = z.tuple([z.number().int().positive(), z.number().int().positive()]);
export const Manifest = z.strictObject({
  language: z.string(),
  defects: z.array(z.strictObject({ id: z.string(), file: z.string(), lines: Range, category: z.enum(CATEGORIES), note: z.string() })),
  decoys: z.array(z.strictObject({ id: z.string(), file: z.string(), lines: Range, note: z.string() })),
});
export type Manifest = z.infer<typeof Manifest>;
export type Defect = Manifest['defects'][number];
export type Decoy = Manifest['decoys'][number];

export interface Project {
  name: string;
  dir: string;
  manifest: Manifest;
}

export const CORPUS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'corpus');
/** The answers' file: left out of the copy a model reviews. */
export const MANIFEST = 'eval.json';

export function loadCorpus(dir: string = CORPUS_DIR): Project[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const file = path.join(dir, name, MANIFEST);
      const parsed = Manifest.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
      if (!parsed.success) throw new Error(`${path.relative(process.cwd(), file)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return { name, dir: path.join(dir, name), manifest: parsed.data };
    });
}
