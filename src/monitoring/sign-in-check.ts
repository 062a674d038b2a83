/**
 * The verdict a save answers with (issue 39 item 2): creating a tenant connection, or changing
 * its credentials, asks the token endpoint at once for one token — the smallest call that proves
 * the credentials — and says what it found, in the check's own shape (`TenantCheck`). The
 * connection is saved whatever the verdict: a new secret may be valid before Entra ID says so
 * everywhere, so the answer says it was saved and what the check found; the collectors' first
 * runs (and `POST …/check`) say the rest.
 */
import type { AppContext } from '../context.js';
import { checkTokens, groupFixes, type CheckResult } from './check.js';
import { loadTenant } from './connection/tenant-row.js';
import { clientForTenant } from './platform/tenant-client.js';
import { createTransport } from './platform/transport.js';

export async function checkSignIn(ctx: AppContext, orgId: string, id: string): Promise<CheckResult> {
  const tenant = await loadTenant(ctx.db, orgId, id);
  const transport = createTransport(ctx, { timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 });
  try {
    const { tokens } = clientForTenant(ctx, tenant, transport, 15_000);
    const { items } = await checkTokens(tokens, ['powerbi']);
    return { ok: items.every((c) => c.ok), checks: items, fixes: groupFixes(items) };
  } finally {
    await transport.close();
  }
}
