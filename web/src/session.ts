/**
 * The console keeps only the chosen organization in sessionStorage (not a credential): the
 * signed-in session is an HttpOnly cookie the page cannot read.
 */
const ORG_KEY = 'vigia.orgId';

export const session = {
  orgId: (): string | null => sessionStorage.getItem(ORG_KEY),
  setOrgId: (orgId: string | null) => (orgId ? sessionStorage.setItem(ORG_KEY, orgId) : sessionStorage.removeItem(ORG_KEY)),
};
