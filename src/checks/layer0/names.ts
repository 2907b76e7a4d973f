/** The Layer-0 checks by name: each name is the category of the findings it reports. */
export const CONTRACT_CHECKS = ['no_placeholder', 'balanced_delimiters', 'json_valid', 'no_duplicate_headings', 'no_text_loop', 'file_size_delta'] as const;
export const ANTI_GAMING_CHECKS = ['test_skipped', 'test_removed', 'assertion_removed', 'suppression_added', 'empty_catch', 'test_uncollected', 'config_weakened'] as const;
export const LAYER0_CHECKS = [...CONTRACT_CHECKS, ...ANTI_GAMING_CHECKS] as const;
export type Layer0Check = (typeof LAYER0_CHECKS)[number];
