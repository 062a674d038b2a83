/** Building blocks shared by the admin API's response schemas (see ../schemas.ts). */
export const str = { type: 'string' } as const;
export const nullableStr = { type: ['string', 'null'] } as const;
export const instant = { type: 'string', format: 'date-time' } as const;
export const nullableInstant = { type: ['string', 'null'], format: 'date-time' } as const;
export const int = { type: 'integer' } as const;
export const bool = { type: 'boolean' } as const;
export const strings = { type: 'array', items: str } as const;
/** A free-form object (a destination's config, an audit entry's changes): serialized as it is. */
export const anyObject = { type: 'object', additionalProperties: true } as const;

/** A paged answer `{ value, page, pageSize, totalCount, nextLink }` of the given item schema. */
export function page(title: string, item: object) {
  return {
    title,
    type: 'object',
    required: ['value', 'page', 'pageSize', 'totalCount', 'nextLink'],
    properties: {
      value: { type: 'array', items: item },
      page: int,
      pageSize: int,
      totalCount: int,
      nextLink: { type: 'string', description: 'The next page’s path with every parameter of this request; empty on the last page.' },
    },
  } as const;
}
