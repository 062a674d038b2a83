/**
 * An array whose elements are derived from their index when read (the lazy tenant's workspaces
 * and item listings, src/tenant-sim/lazy-tenant.ts).
 */

/** The property under which a lazy array carries what `lazyOf` finds on it. */
export const LAZY = Symbol('lazy workspaces');

function indexOf(prop: string | symbol, length: number): number | null {
  if (typeof prop !== 'string') return null;
  const c = prop.charCodeAt(0);
  if (c < 48 || c > 57) return null;
  const n = Number(prop);
  return Number.isInteger(n) && n < length && String(n) === prop ? n : null;
}

/**
 * An array (Array.isArray, every array method) of `length` elements that `at` gives on read;
 * `lazy` is what `lazyOf` finds on it. Writes to an index go to `writes` (the workspaces keep them).
 */
export function lazyArray<T>(length: number | { readonly length: number }, at: (i: number) => T, extra: { lazy?: object; write?: (i: number, v: T) => void; truncate?: (n: number) => void } = {}): T[] {
  const size = () => (typeof length === 'number' ? length : length.length);
  const target: T[] = [];
  const fast = fastWalks(size, at, () => self);
  const self: T[] = new Proxy(target, {
    get(t, prop, receiver) {
      if (prop === LAZY) return extra.lazy;
      if (prop === 'length') return size();
      const i = indexOf(prop, size());
      if (i !== null) return at(i);
      if (Object.hasOwn(fast, prop)) return fast[prop as string];
      return Reflect.get(t, prop, receiver);
    },
    has(t, prop) {
      return indexOf(prop, size()) !== null || Reflect.has(t, prop);
    },
    set(t, prop, value) {
      if (prop === 'length' && extra.truncate) {
        extra.truncate(Number(value));
        return true;
      }
      if (extra.write && typeof prop === 'string' && /^(0|[1-9]\d*)$/.test(prop)) {
        extra.write(Number(prop), value as T);
        return true;
      }
      return Reflect.set(t, prop, value);
    },
    getOwnPropertyDescriptor(t, prop) {
      const i = indexOf(prop, size());
      if (i !== null) return { value: at(i), writable: true, enumerable: true, configurable: true };
      if (prop === 'length') return { ...Reflect.getOwnPropertyDescriptor(t, 'length')!, value: size() };
      return Reflect.getOwnPropertyDescriptor(t, prop);
    },
    ownKeys(t) {
      return [...Array.from({ length: size() }, (_, i) => String(i)), ...Reflect.ownKeys(t)];
    },
  });
  return self;
}

/**
 * The walks handlers use, run on `at` directly: the generic array methods on a proxy go through a
 * has and a get trap per element, several times slower. `array` is the proxy (the walks' third
 * argument).
 */
function fastWalks<T>(size: () => number, at: (i: number) => T, array: () => T[]): Record<string, unknown> {
  type Visit<R> = (v: T, i: number, a: T[]) => R;
  return {
    slice: (start = 0, end = size()) => {
      const n = size();
      const from = start < 0 ? Math.max(0, n + start) : Math.min(start, n);
      const to = end < 0 ? Math.max(0, n + end) : Math.min(end, n);
      const out: T[] = [];
      for (let i = from; i < to; i++) out.push(at(i));
      return out;
    },
    filter: (f: Visit<unknown>) => {
      const out: T[] = [];
      for (let i = 0, n = size(); i < n; i++) {
        const v = at(i);
        if (f(v, i, array())) out.push(v);
      }
      return out;
    },
    map: <R>(f: Visit<R>) => {
      const out: R[] = [];
      for (let i = 0, n = size(); i < n; i++) out.push(f(at(i), i, array()));
      return out;
    },
    flatMap: <R>(f: Visit<R | R[]>) => {
      const out: R[] = [];
      for (let i = 0, n = size(); i < n; i++) {
        const r = f(at(i), i, array());
        if (Array.isArray(r)) for (const x of r) out.push(x);
        else out.push(r);
      }
      return out;
    },
    find: (f: Visit<unknown>) => {
      for (let i = 0, n = size(); i < n; i++) {
        const v = at(i);
        if (f(v, i, array())) return v;
      }
      return undefined;
    },
    some: (f: Visit<unknown>) => {
      for (let i = 0, n = size(); i < n; i++) if (f(at(i), i, array())) return true;
      return false;
    },
    every: (f: Visit<unknown>) => {
      for (let i = 0, n = size(); i < n; i++) if (!f(at(i), i, array())) return false;
      return true;
    },
    forEach: (f: Visit<unknown>) => {
      for (let i = 0, n = size(); i < n; i++) f(at(i), i, array());
    },
    [Symbol.iterator as unknown as string]: function* () {
      for (let i = 0; i < size(); i++) yield at(i);
    },
  };
}
