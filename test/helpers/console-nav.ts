/**
 * The console's main navigation groups its pages (Monitor, Delivery, Access), each a <details>:
 * a test opens the group holding the link, then follows it, as a person does.
 */
import type { Page } from 'playwright-core';

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
