/**
 * The browser routes of the single-page console: the one list. The server answers index.html on
 * each (serve.ts) and the console's router draws a page for each (web/src/main.tsx imports this
 * module), so a page cannot exist on one side only. Plain TypeScript with no imports: it is
 * compiled into both the server and the browser bundle.
 */
export const CONSOLE_ROUTES = [
  '/',
  '/orgs',
  '/destinations',
  '/destinations/:destinationId',
  '/api-keys',
  '/alerts',
  '/alerts/:alertId',
  '/silences',
  '/members',
  '/tokens',
  '/audit',
  '/overview',
  '/capacities',
  '/workspaces',
  '/gateways',
  '/semantic-models',
  '/tenants',
  '/settings',
] as const;

export type ConsoleRoute = (typeof CONSOLE_ROUTES)[number];

export interface ConsoleRouteMatch {
  route: ConsoleRoute;
  /** The `:name` segments, URL-decoded. */
  params: Record<string, string>;
}

/** The route a browser path belongs to, or null (the console then shows its not-found page). */
export function matchConsoleRoute(pathname: string): ConsoleRouteMatch | null {
  const parts = pathname.split('/');
  for (const route of CONSOLE_ROUTES) {
    const pattern = route.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      const part = parts[i]!;
      if (!segment.startsWith(':')) return segment === part;
      if (part === '') return false;
      try {
        params[segment.slice(1)] = decodeURIComponent(part);
        return true;
      } catch {
        return false; // malformed %-escape: no page
      }
    });
    if (matches) return { route, params };
  }
  return null;
}
