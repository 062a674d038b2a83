/** API keys and inventory writes: response schemas of the admin API (index and rules in ../schemas.ts). */
import { str, nullableStr, instant, nullableInstant, int, strings } from './common.js';

const apiKeyProperties = { id: str, name: str, scopes: strings, expiresAt: nullableInstant, prefix: str, createdAt: instant } as const;

export const apiKeySchema = {
  title: 'ApiKey',
  type: 'object',
  required: [...Object.keys(apiKeyProperties), 'lastUsedAt', 'revokedAt'],
  properties: { ...apiKeyProperties, lastUsedAt: nullableInstant, revokedAt: nullableInstant },
} as const;

export const createdApiKeySchema = {
  title: 'CreatedApiKey',
  type: 'object',
  required: [...Object.keys(apiKeyProperties), 'key'],
  properties: { ...apiKeyProperties, key: { type: 'string', description: 'The key in clear, in this answer only.' } },
} as const;

// Inventory writes ---------------------------------------------------------------------------

export const capacitiesSchema = {
  type: 'array',
  items: { title: 'Capacity', type: 'object', required: ['name', 'sku', 'state', 'region'], properties: { name: str, sku: str, state: str, region: str } },
} as const;

export const workspacesSchema = {
  type: 'array',
  items: { title: 'Workspace', type: 'object', required: ['name', 'remoteId', 'capacityName'], properties: { name: str, remoteId: str, capacityName: nullableStr } },
} as const;

export const upsertedSchema = { title: 'Upserted', type: 'object', required: ['upserted'], properties: { upserted: int } } as const;
