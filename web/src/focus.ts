import { useEffect, useRef } from 'preact/hooks';

/**
 * After a navigation inside the console, focus moves to the new page's heading (its h1), so a
 * screen reader says where the user arrived and keyboard users start from the page's top. The
 * first render keeps the browser's own focus. A page that renders its heading after loading is
 * caught by watching `main` for a while (bounded).
 */
export function useFocusOnNavigation(path: string): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const focusHeading = (): boolean => {
      const h = document.querySelector<HTMLElement>('main h1');
      if (!h) return false;
      if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
      h.focus();
      return true;
    };
    if (focusHeading()) return;
    const main = document.querySelector('main');
    if (!main) return;
    const watch = new MutationObserver(() => focusHeading() && watch.disconnect());
    watch.observe(main, { childList: true, subtree: true });
    const stop = setTimeout(() => watch.disconnect(), 5000);
    return () => {
      clearTimeout(stop);
      watch.disconnect();
    };
  }, [path]);
}
