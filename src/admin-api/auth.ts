import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { hashToken, safeEqual } from '../secrets/tokens.js';
import { loadAdminTokenHash } from './admin-token.js';

const UNAUTHORIZED = () => new ApiError(401, 'unauthorized', 'missing or invalid admin token');

/** `Authorization: Bearer <admin token>` on every admin route, compared in constant time. */
export function installAdminAuth(app: FastifyInstance, ctx: AppContext): void {
  let cachedHash: string | null = null;
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer (\S+)$/.exec(header) : null;
    if (!m) throw UNAUTHORIZED();
    cachedHash ??= await loadAdminTokenHash(ctx.db);
    if (!cachedHash || !safeEqual(hashToken(m[1]!), cachedHash)) {
      // The token may have been replaced by another instance's start: re-read once.
      cachedHash = await loadAdminTokenHash(ctx.db);
      if (!cachedHash || !safeEqual(hashToken(m[1]!), cachedHash)) throw UNAUTHORIZED();
    }
  });
}
