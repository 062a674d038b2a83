/**
 * The console's main navigation groups its pages (Monitor, Delivery, Access), each a <details>:
 * a test opens the group holding the link, then follows it, as a person does.
 */
import type { Locator, Page } from 'playwright-core';

export async function clickNavLink(p: Page, name: string): Promise<void> {
  const nav = p.getByRole('navigation', { name: /Navegação principal|Main navigation/ });
  const link = nav.getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) {
    const menu = p.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await menu.click();
    // A link in a closed group is hidden, so role queries skip it: find its group by the link's
    // text. (`has` is matched inside each group, so it starts from there, not from the nav.)
    const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    await nav.locator('details', { has: p.locator('a').filter({ hasText: exact }) }).locator('summary').click();
  }
  await link.click();
}

/**
 * The Tenant page shows the monitor's own problems first; the collectors' table with the call
 * budget ('collectors') and the settings ('settings') are each a <details> of the tenant's card:
 * a test opens the part it reads, as a person does.
 */
export async function openTenantPart(card: Locator, part: 'collectors' | 'settings'): Promise<void> {
  const details = card.getByTestId(`tenant-${part}`);
  if ((await details.getAttribute('open')) === null) await details.locator(':scope > summary').click();
}
