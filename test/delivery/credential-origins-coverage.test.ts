/**
 * Issue 35: the credential rule covers every address field. This walks the admin API's OpenAPI
 * document (every request body and every schema of src/admin-api/schemas/) and every connector's
 * config fields, finds each field that holds an address, and fails when one is neither in the
 * rule's table (src/delivery/credential-origins.ts) nor one of Vigia's own addresses listed there.
 * A new URL field of a destination kind, a tenant connection or any other body fails here until
 * the table says which credentials it carries and which hosts it may name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_CREDENTIAL_FIELDS } from '../../src/delivery/connectors/chat.js';
import { connectors } from '../../src/delivery/connectors/index.js';
import { ADDRESSES_WITHOUT_CREDENTIALS, CREDENTIAL_ORIGINS, type CredentialSubject } from '../../src/delivery/credential-origins.js';
import { createTestApp, type TestApp } from '../helpers/context.js';

type Schema = Record<string, unknown>;
interface Found {
  /** A schema's title, or `METHOD /route body`. */
  where: string;
  /** Property names from there. */
  path: string;
}

/** A property name that holds an address. */
const ADDRESS_NAME = /(url|uri|host|origin|endpoint)$/i;

/** The address-valued string properties of a schema (not following $ref: named schemas are walked on their own). */
function addressFields(schema: unknown, where: string, prefix: string[] = [], out: Found[] = []): Found[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Schema;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const sub of (s[key] as unknown[]) ?? []) addressFields(sub, where, prefix, out);
  if (s.items) addressFields(s.items, where, prefix, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') addressFields(s.additionalProperties, where, [...prefix, '*'], out);
  for (const [name, sub] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
    const path = [...prefix, name];
    const types = [sub.type, ...((sub.anyOf as Schema[]) ?? []).map((x) => x.type)].flat();
    const isString = types.includes('string') || sub.format === 'uri';
    // An object named `endpoints` (or a schema titled …Endpoints) holds addresses whatever their names.
    const inEndpoints = prefix.length > 0 ? prefix[prefix.length - 1] === 'endpoints' : /endpoints$/i.test(where);
    if (isString && (ADDRESS_NAME.test(name) || inEndpoints || sub.format === 'uri')) out.push({ where, path: path.join('.') });
    addressFields(sub, where, path, out);
  }
  return out;
}

const DESTINATION_SUBJECTS: CredentialSubject[] = ['webhook', 'pagerduty', 'opsgenie', 'jsm', 'servicenow', 'azure-devops'];

/** The table field covering a found address, or null. */
function coveredBy(f: Found): string | null {
  if (ADDRESSES_WITHOUT_CREDENTIALS[`${f.where}.${f.path}`]) return 'own address';
  const subjects: CredentialSubject[] = /destination/i.test(f.where) ? DESTINATION_SUBJECTS : /tenant|utilization|eventhouse/i.test(f.where) ? ['tenant'] : [];
  for (const subject of subjects) {
    for (const b of CREDENTIAL_ORIGINS[subject]) {
      if (b.field === f.path || b.field.endsWith(`.${f.path}`) || f.path.endsWith(`.${b.field}`)) return `${subject} ${b.field}`;
    }
  }
  return null;
}

describe('the credential rule covers every address field of the admin API', () => {
  let t: TestApp;
  let found: Found[];
  beforeAll(async () => {
    t = await createTestApp();
    const doc = (await t.admin('GET', '/openapi.json')).json();
    found = [];
    for (const [title, schema] of Object.entries(doc.components.schemas as Record<string, Schema>)) addressFields(schema, title, [], found);
    for (const [route, methods] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const body = (op.requestBody as Schema | undefined)?.content as Record<string, { schema: Schema }> | undefined;
        if (body?.['application/json']) addressFields(body['application/json'].schema, `${method.toUpperCase()} ${route} body`, [], found);
      }
    }
  });
  afterAll(() => t.close());

  it('finds the address fields (the walk is not vacuous)', () => {
    const paths = new Set(found.map((f) => `${f.where}.${f.path}`));
    for (const expected of [
      'TenantEndpoints.authorityHost',
      'TenantEndpoints.arm',
      'PATCH /orgs/{orgId}/tenants/{id} body.endpoints.powerBi',
      'PATCH /orgs/{orgId}/tenants/{id} body.utilization.eventhouse.queryUri',
      'UtilizationEventhouse.queryUri',
      'PATCH /orgs/{orgId}/destinations/{id} body.url',
      'Destination.url',
    ]) {
      expect(paths, expected).toContain(expected);
    }
  });

  it('every address field of the schemas is in the table or is one of Vigia\'s own addresses', () => {
    const uncovered = found.filter((f) => coveredBy(f) === null).map((f) => `${f.where}.${f.path}`);
    expect(uncovered).toEqual([]);
  });

  it("every connector's URL config field is in its kind's table, and every table field exists", () => {
    for (const c of Object.values(connectors)) {
      const table = CREDENTIAL_ORIGINS[c.kind].map((b) => b.field);
      for (const field of c.configFields.filter((f) => ADDRESS_NAME.test(f))) expect(table, `${c.kind}: config.${field}`).toContain(`config.${field}`);
      // A chat kind's address is its credential itself (credentials.webhookUrl): bound to hosts, naming no other credential.
      const isCredential = (field: string) => field.startsWith('credentials.') && CHAT_CREDENTIAL_FIELDS.includes(field.slice('credentials.'.length));
      for (const field of table.filter((f) => !isCredential(f))) expect(c.configFields.map((f) => `config.${f}`), `${c.kind}: ${field}`).toContain(field);
      // Every field that carries a credential names at least one (or is one), and has a host table.
      for (const b of CREDENTIAL_ORIGINS[c.kind]) expect((b.credentials.length > 0 || isCredential(b.field)) && b.hosts !== null, `${c.kind} ${b.field}`).toBe(true);
    }
    const tenantFound = found.filter((f) => coveredBy(f)?.startsWith('tenant ')).map((f) => coveredBy(f));
    for (const b of CREDENTIAL_ORIGINS.tenant) expect(tenantFound, b.field).toContain(`tenant ${b.field}`);
  });
});
