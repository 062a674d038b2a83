/**
 * Where to go back to after signing in (docs/notifications.md, "Acknowledge from the message"):
 * an acknowledge page that requires sign-in sends the browser to `/?next=/ack/…`. The path is
 * kept in this tab's sessionStorage (a company sign-in leaves the page and comes back to `/`)
 * and followed once a session exists. Only acknowledge pages of this origin are followed.
 */
const KEY = 'vigia.returnTo';
const ALLOWED = /^\/ack\/[A-Za-z0-9._-]{1,800}$/;

/** Remembers `?next=` of the current address when it is an acknowledge page. */
export function rememberReturnTo(): void {
  const next = new URLSearchParams(location.search).get('next');
  if (next && ALLOWED.test(next)) sessionStorage.setItem(KEY, next);
}

/** Once signed in: goes back to the remembered page (true), or stays (false). */
export function followReturnTo(): boolean {
  const next = sessionStorage.getItem(KEY);
  if (!next) return false;
  sessionStorage.removeItem(KEY);
  if (!ALLOWED.test(next)) return false;
  location.assign(next);
  return true;
}
