/**
 * The floors of src/, lowest first. A room may import from its own floor's rooms and from the floors below,
 * never from a floor above; and no module may take part in an import circle (type-only imports count).
 * `npm test` runs this (test/unit/architecture.test.ts); `npx depcruise src` shows any violation.
 */
const FLOORS = [
  ['protocol'], // the vocabulary: agent names, paths, the finding and verdict schemas, stop rules, zod and text helpers
  ['state', 'bash', 'wasm'], // the state file's schema and digests; the Bash command analysis; the line scanner's WebAssembly
  ['review'], // a round's findings: reading, grounding, fingerprints, aggregation
  ['checks'], // the project's checks and Layer-0
  ['config', 'report'], // options and .minions.json; the reports and SARIF, rendered from the verdicts
  ['core'], // the pure state machine: transition, the phases, the gates, prompts, refusals, progress lines
  ['shell'], // the imperative shell: files, git, the lock, the store, observing a phase, running the hook
  ['hooks', 'cli', 'launch.ts'], // the entrypoints
];

const room = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})(/|$)`;

const floorRules = FLOORS.slice(0, -1).map((floor, i) => ({
  name: `floor-${i}-${floor.join('-')}`,
  comment: `${floor.join(', ')} may not import from a floor above it (${FLOORS.slice(i + 1).flat().join(', ')})`,
  severity: 'error',
  from: { path: room(floor) },
  to: { path: room(FLOORS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import circle ties floors into a knot',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unplaced-room',
      comment: 'every room of src/ has a floor in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: room(FLOORS.flat()) },
      to: {},
    },
    ...floorRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|plugin)/' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
  },
};
