// A path router for the single page under /app: links change history without reloading, and the server
// answers every /app path with the same page, so a reload or a shared link opens the same view.
import { useEffect, useState } from 'preact/hooks';

export function navigate(path: string): void {
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return path;
}

/** Follows a same-page link through the router; modified clicks (new tab) are left to the browser. */
export function onLink(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.pathname + a.search);
}
