/**
 * The token clients of the tenants this instance runs collectors for. Each holds a tenant's
 * decrypted credentials, so it is dropped when its connection was deleted or changed (its
 * `version`, counted by the database on every change to what a token is asked with: migration
 * 391 — not a clock) or when it was not used for an hour.
 */
import type { AppContext } from '../../context.js';
import type { ApiFamily } from '../platform/budget.js';
import { takeCall } from '../platform/budget.js';
import { endpointsOf, openCredentials, type TenantRow } from '../connection/tenant-row.js';
import { TenantTokens } from '../platform/tokens.js';
import type { Transport } from '../platform/transport.js';

interface CachedTokens {
  version: number;
  tokens: TenantTokens;
  lastUsedMs: number;
}

/** A token client not used for this long is dropped (the tenant was removed, disabled, or moved to another instance). */
const TOKENS_IDLE_MS = 60 * 60_000;
/** How often the cache is checked against the tenants table (deleted or changed connections). */
const TOKENS_SWEEP_MS = 60_000;

export class TokenCache {
  private readonly tokens = new Map<string, CachedTokens>();
  private lastSweepMs = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly transport: Transport,
    private readonly caps: Record<ApiFamily, number> | undefined,
  ) {}

  /** Drops the clients whose connection was deleted or changed, or that were idle an hour. Checked at most once a minute. */
  async sweep(force = false): Promise<void> {
    const nowMs = this.ctx.clock.now().getTime();
    if (this.tokens.size === 0 || (!force && nowMs - this.lastSweepMs < TOKENS_SWEEP_MS)) return;
    this.lastSweepMs = nowMs;
    const { rows } = await this.ctx.db.query<{ id: string; version: number }>('SELECT id, version FROM tenants WHERE id = ANY($1::text[])', [[...this.tokens.keys()]]);
    const current = new Map(rows.map((r) => [r.id, Number(r.version)]));
    for (const [id, cached] of this.tokens) {
      if (current.get(id) !== cached.version || nowMs - cached.lastUsedMs > TOKENS_IDLE_MS) this.tokens.delete(id);
    }
  }

  has(tenantRef: string): boolean {
    return this.tokens.has(tenantRef);
  }

  forget(tenantRef: string): void {
    this.tokens.delete(tenantRef);
  }

  clear(): void {
    this.tokens.clear();
  }

  /** The tenant's token client, made afresh when its connection changed since the cached one. */
  for(tenant: TenantRow): TenantTokens {
    const version = Number(tenant.version);
    const lastUsedMs = this.ctx.clock.now().getTime();
    const cached = this.tokens.get(tenant.id);
    if (cached && cached.version === version) {
      cached.lastUsedMs = lastUsedMs;
      return cached.tokens;
    }
    const endpoints = endpointsOf(tenant);
    const tokens = new TenantTokens(
      { tenantId: tenant.tenant_id, clientId: tenant.client_id, authorityHost: endpoints.authorityHost, credentials: openCredentials(this.ctx, tenant) },
      this.transport,
      () => takeCall(this.ctx.db, tenant.tenant_id, 'token', this.ctx.clock.now(), this.caps),
      () => this.ctx.clock.now().getTime(),
    );
    this.tokens.set(tenant.id, { version, tokens, lastUsedMs });
    return tokens;
  }
}
