/**
 * The signed-in session lives in sessionStorage: it survives a reload of this tab and is gone
 * when the tab closes. The token is never put in a URL, a cookie or a log.
 */
const TOKEN_KEY = 'vigia.adminToken';
const ORG_KEY = 'vigia.orgId';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  setToken: (token: string | null) => (token ? sessionStorage.setItem(TOKEN_KEY, token) : sessionStorage.removeItem(TOKEN_KEY)),
  orgId: (): string | null => sessionStorage.getItem(ORG_KEY),
  setOrgId: (orgId: string | null) => (orgId ? sessionStorage.setItem(ORG_KEY, orgId) : sessionStorage.removeItem(ORG_KEY)),
};
