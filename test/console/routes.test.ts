// @engine-neutral: the console's routes, static files and generated types, not the database
/** The console's one route list: the browser router and the server agree on every page. */
import { describe, expect, it } from 'vitest';
import { CONSOLE_ROUTES, matchConsoleRoute } from '../../src/console/routes.js';
import { createTestApp } from '../helpers/context.js';

const sample = (route: string) => route.replace(/:(\w+)/g, (_m, name: string) => `${name}-é%2F1`);

describe('console routes', () => {
  it('the router recognises every listed route and decodes its parameters', () => {
    for (const route of CONSOLE_ROUTES) expect(matchConsoleRoute(sample(route))?.route).toBe(route);
    expect(matchConsoleRoute('/alerts/alt_1%2Fx')).toEqual({ route: '/alerts/:alertId', params: { alertId: 'alt_1/x' } });
    expect(matchConsoleRoute('/destinations/dst_9')).toEqual({ route: '/destinations/:destinationId', params: { destinationId: 'dst_9' } });
  });

  it('the router has no page for anything else', () => {
    for (const path of ['/nope', '/alerts/', '/alerts/a/b', '/destinations//x', '/alerts/%E0%A4%A', '/orgs/x']) expect(matchConsoleRoute(path)).toBeNull();
  });

  it('the server answers the console page on every listed route and the JSON 404 elsewhere', async () => {
    const t = await createTestApp();
    try {
      for (const route of CONSOLE_ROUTES) {
        const res = await t.app.inject({ method: 'GET', url: sample(route) });
        expect([200, 503], route).toContain(res.statusCode); // 503: the console is not built in this checkout
        expect(res.headers['content-type']).toContain('text/html');
      }
      const other = await t.app.inject({ method: 'GET', url: '/nope' });
      expect(other.statusCode).toBe(404);
      expect(other.json().error.code).toBe('not_found');
    } finally {
      await t.close();
    }
  });
});
