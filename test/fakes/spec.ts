/**
 * The vendor contracts the fakes check requests against: the committed files in contracts/
 * (derived from the vendors' published descriptions, see docs/contracts.md), so the fakes work
 * from a clone of the repository alone. The checker itself lives in src/contracts.
 */
import { loadContract, type ApiDoc } from '../../src/contracts/index.js';

export { matchOperation, resolveRef, validateOperation, validateSchema } from '../../src/contracts/index.js';
export type { ApiDoc, MatchedOperation } from '../../src/contracts/index.js';

export function loadPagerDuty(): ApiDoc {
  return loadContract('pagerduty');
}

export function loadOpsgenie(): ApiDoc {
  return loadContract('opsgenie');
}

export function loadAzureDevOps(): ApiDoc {
  return loadContract('azure-devops');
}
