/**
 * Shapes the generated OpenAPI document for client generators: every schema that carries a
 * `title` (Alert, AlertPage, Error, …) becomes a named entry of `components.schemas` and is
 * referenced by `$ref` wherever it appears, so generated types get those names instead of
 * anonymous inline shapes. The route schemas stay inline in the code, where they also validate
 * and serialize.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const NAME = /^[A-Z][A-Za-z0-9]*$/;

/** Walks `paths` bottom-up and hoists titled schemas; the same title must mean the same schema. */
export function hoistNamedSchemas<T extends object>(doc: T): T {
  const named = new Map<string, { text: string; schema: JsonObject }>();
  const visit = (node: Json, inSchema: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => visit(n, inSchema));
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      // Only below a `schema` key is `title` the JSON Schema keyword.
      out[key] = visit(value, inSchema || key === 'schema');
    }
    const title = node.title;
    if (!inSchema || typeof title !== 'string' || !NAME.test(title) || typeof node.type !== 'string') return out;
    const text = JSON.stringify(out);
    const seen = named.get(title);
    if (seen && seen.text !== text) throw new Error(`OpenAPI: two different schemas are titled ${title}`);
    named.set(title, { text, schema: out });
    return { $ref: `#/components/schemas/${title}` };
  };
  const record = doc as unknown as JsonObject;
  const paths = visit(record.paths ?? {}, false);
  const components = (record.components ?? {}) as JsonObject;
  const schemas: JsonObject = {};
  for (const name of [...named.keys()].sort()) schemas[name] = named.get(name)!.schema;
  return { ...record, paths, components: { ...components, schemas } } as unknown as T;
}
