/**
 * The vendors' API contracts committed in `contracts/*.json` (derived from their published
 * descriptions by scripts/derive-contracts.mjs, see docs/contracts.md) and the checker that holds
 * a request to them: operation (method + path template), required path/query/header parameters
 * and their enums, the api-version an Azure operation needs, and the JSON body against the
 * operation's schema. Used by the tests' vendor fakes and by the tenant simulator's strict mode.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { matchOperation, validateOperation, validateSchema, resolveRef } from './check.js';
export type { ApiDoc, MatchedOperation, Operation, Parameter, Schema } from './check.js';
import type { ApiDoc } from './check.js';

/** contracts/ at the repository root (src/contracts/ or dist/contracts/ → ../../contracts). */
export const CONTRACTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../contracts');

export type ContractName = 'pagerduty' | 'opsgenie' | 'azure-devops' | 'powerbi' | 'fabric' | 'azure-resource-manager' | 'teams-workflows' | 'slack-webhook';

export interface ContractSource {
  folder: string;
  repository: string;
  commit: string | null;
  license: string;
  files: string[];
  fileCommits?: Record<string, string | null>;
}

export interface Contract extends ApiDoc {
  title: string;
  sources: ContractSource[];
}

/** Reads one committed contract; each call returns a fresh copy (callers may extend `paths`). */
export function loadContract(name: ContractName): Contract {
  const raw = JSON.parse(readFileSync(path.join(CONTRACTS_DIR, `${name}.json`), 'utf8'));
  return { ...raw, root: raw, paths: raw.paths };
}
