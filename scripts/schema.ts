/** Generates the JSON Schemas in schema/ from the zod schemas (the single source of truth). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import '../src/protocol/zod';
import { ReviewerOutput } from '../src/protocol/reviewer-output';
import { FixSummary, Verdict } from '../src/protocol/verdict-schema';
import { DismissedFile, DISMISSED_FILE } from '../src/protocol/dismissed';
import { State } from '../src/state/schema';
import { ChecksReport, Layer0Report } from '../src/checks/reports';
import { CONFIG_FILE, ProjectConfig } from '../src/config/project-config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const SCHEMAS: Record<string, { schema: z.core.$ZodType; title: string }> = {
  'verdict.schema.json': { schema: Verdict, title: 'minions review verdict (.agents/tmp/phases/review-N/r1-verdict.json)' },
  'reviewer-output.schema.json': { schema: ReviewerOutput, title: "minions reviewer output (.agents/tmp/phases/review-N/r1-<reviewer>.json)" },
  'fix-summary.schema.json': { schema: FixSummary, title: "minions fixer's answers (.agents/tmp/phases/review-N/r2-fix-summary.json)" },
  'state.schema.json': { schema: State, title: 'minions loop state (.agents/tmp/state.json)' },
  'minions-config.schema.json': { schema: ProjectConfig, title: `minions project config (${CONFIG_FILE} at the project root)` },
  'checks.schema.json': { schema: ChecksReport, title: "minions: the project's checks (.agents/tmp/phases/baseline/checks.json, review-N/checks.json)" },
  'dismissed.schema.json': { schema: DismissedFile, title: `minions: dismissed findings (${DISMISSED_FILE}, yours to commit)` },
  'layer0.schema.json': { schema: Layer0Report, title: 'minions: Layer-0 on a fix round (.agents/tmp/phases/review-N/layer0.json)' },
};

export function renderSchemas(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(SCHEMAS).map(([file, { schema, title }]) => [
      file,
      `${JSON.stringify({ title, ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) }, null, 2)}\n`,
    ]),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(renderSchemas())) fs.writeFileSync(path.join(root, 'schema', file), text);
}
