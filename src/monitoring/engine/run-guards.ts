/**
 * What one collector run is given instead of the instance's own parts, so that a run that lost
 * its lease (or an instance that stops) makes no further call: a wait that fails early, a
 * transport and a token client that refuse once the run is aborted.
 */
import type { TenantTokens } from '../platform/tokens.js';
import type { Transport } from '../platform/transport.js';

/** A run interrupted because the instance stops. */
export class StoppingError extends Error {}

/** A wait that ends early, failing, when the instance stops or the run loses its lease. */
export function runSleeper(stop: AbortSignal, run: AbortSignal) {
  return (ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const failure = () => (run.aborted ? (run.reason as Error) : new StoppingError('stopping'));
      if (stop.aborted || run.aborted) return reject(failure());
      const t = setTimeout(() => {
        stop.removeEventListener('abort', onAbort);
        run.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        stop.removeEventListener('abort', onAbort);
        run.removeEventListener('abort', onAbort);
        reject(failure());
      };
      stop.addEventListener('abort', onAbort, { once: true });
      run.addEventListener('abort', onAbort, { once: true });
    });
}

/** The token client as one run sees it: once the run lost its lease, no token is asked for. */
export function runTokens(tokens: TenantTokens, run: AbortSignal): Pick<TenantTokens, 'get'> {
  return {
    get: async (audience) => {
      run.throwIfAborted();
      return tokens.get(audience);
    },
  };
}

/** The transport as one run sees it: once the run lost its lease, no call leaves. */
export function runTransport(base: Transport, run: AbortSignal): Transport {
  const guarded = (req: Parameters<Transport>[0]) => {
    if (run.aborted) return Promise.reject(run.reason as Error);
    return base(req);
  };
  return Object.assign(guarded, { options: base.options, close: () => base.close(), destroy: () => base.destroy() });
}
