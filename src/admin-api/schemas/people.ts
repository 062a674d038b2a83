/** People, personal tokens, the audit log and the session: response schemas of the admin API (index and rules in ../schemas.ts). */
import { ROLES } from '../../access/roles.js';
import { str, nullableStr, instant, nullableInstant, bool, page } from './common.js';

const role = { type: 'string', enum: [...ROLES] } as const;

export const memberSchema = {
  title: 'Member',
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'since', 'source'],
  properties: {
    id: str,
    email: str,
    name: nullableStr,
    role,
    since: instant,
    source: {
      type: 'string',
      enum: ['membership', 'identity-provider'],
      description: "membership: given by an owner; identity-provider: only through the provider's groups/roles claim (VIGIA_OIDC_ROLE_MAP) in a live session — it ends in the provider",
    },
  },
} as const;

const personalTokenProperties = {
  id: str,
  orgId: str,
  name: str,
  role,
  prefix: str,
  createdAt: instant,
  expiresAt: instant,
  lastUsedAt: nullableInstant,
  revokedAt: nullableInstant,
} as const;

export const personalTokenSchema = { title: 'PersonalToken', type: 'object', required: Object.keys(personalTokenProperties), properties: personalTokenProperties } as const;

export const createdPersonalTokenSchema = {
  title: 'CreatedPersonalToken',
  type: 'object',
  required: [...Object.keys(personalTokenProperties), 'token'],
  properties: { ...personalTokenProperties, token: { type: 'string', description: 'The token in clear, in this answer only.' } },
} as const;

export const auditPageSchema = page('AuditPage', {
  title: 'AuditEntry',
  type: 'object',
  required: ['id', 'orgId', 'at', 'actor', 'address', 'action', 'target', 'changes'],
  properties: {
    id: str,
    orgId: nullableStr,
    at: instant,
    actor: { title: 'AuditActor', type: 'object', required: ['kind', 'id', 'label'], properties: { kind: str, id: nullableStr, label: str } },
    address: nullableStr,
    action: str,
    target: nullableStr,
    changes: { description: 'What the change did: the fields its request schema validated (an object, or the array of a replace-all), or what a side effect did; secret-named fields redacted. A body a route has no schema for is not recorded.' },
  },
});

const callerProperties = {
  kind: { type: 'string', enum: ['instance-admin', 'person'] },
  email: nullableStr,
  instanceAdmin: bool,
  roles: { type: 'array', items: { title: 'OrgRole', type: 'object', required: ['orgId', 'role'], properties: { orgId: str, role } } },
  csrfToken: { type: ['string', 'null'], description: 'Sent back as `x-csrf-token` on every change; null without a session cookie.' },
} as const;

export const sessionSchema = { title: 'Session', type: 'object', required: Object.keys(callerProperties), properties: callerProperties } as const;

export const sessionOptionsSchema = {
  title: 'SessionOptions',
  type: 'object',
  required: ['oidc'],
  properties: { oidc: { type: 'boolean', description: 'Whether signing in with the company account (OpenID Connect) is offered.' } },
} as const;

export const openedSessionSchema = {
  title: 'OpenedSession',
  type: 'object',
  required: [...Object.keys(callerProperties), 'expiresAt'],
  properties: { ...callerProperties, expiresAt: instant },
} as const;
