// Types of scripts/derive-contracts.mjs for the TypeScript tests that import it.
export const CONTRACTS_DIR: string;
export function defaultSpecsDir(): string;
export function deriveContracts(specsDir?: string): Record<string, string>;
export const CONTRACT_SET: Array<{ file: string; title: string; sources: string[] }>;
