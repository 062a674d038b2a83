/** JSON-schema fragments shared by the admin routes. Strict: no unknown fields, no coercion. */

export const nonEmptyText = (maxLength = 200) => ({ type: 'string', minLength: 1, maxLength }) as const;

export const orgIdParams = {
  type: 'object',
  required: ['orgId'],
  properties: { orgId: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export const slaTargetsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mttaMinutes: { type: 'integer', minimum: 1, maximum: 525600 },
    mttrMinutes: { type: 'integer', minimum: 1, maximum: 525600 },
    availabilityPercent: { type: 'number', minimum: 0, maximum: 100 },
  },
} as const;

/** null disables escalation; at most a week. */
export const escalationMinutesSchema = {
  anyOf: [{ type: 'integer', minimum: 1, maximum: 10080 }, { type: 'null' }],
} as const;

/** The organization's language: the titles and messages Vigia's collectors write follow it. */
export const languageSchema = { type: 'string', enum: ['pt-BR', 'en'] } as const;

/** The organization's time zone (IANA name; checked against the runtime's zone database). */
export const timeZoneSchema = { type: 'string', minLength: 1, maxLength: 64 } as const;

/** Reply-To of the organization's alert e-mail: one plain address, or null for none. */
export const emailReplyToSchema = { anyOf: [{ type: 'string', minLength: 3, maxLength: 254 }, { type: 'null' }] } as const;
