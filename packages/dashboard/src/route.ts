/**
 * Hash routes: `#/<page>[/<id>][?<params>]`, e.g. `#/responses/demo-r42?agent=sql` (a response's
 * detail, the list's filters kept) or `#/users/user-7`. Every view a team shares has its own URL
 * that survives a reload; moving between views assigns `location.hash`, so the back button
 * returns. The key never appears in a route (it stays in sessionStorage).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';

/** A parsed route. */
export interface Route {
  page: string;
  /** The item the page opens (a response id, a user id), decoded; null for the page itself. */
  id: string | null;
  params: URLSearchParams;
}

/**
 * Parses a location hash.
 *
 * @example
 * parseRoute('#/responses/r%2F1?agent=sql') // { page: 'responses', id: 'r/1', params: agent=sql }
 */
export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [page = '', ...rest] = path.split('/');
  const id = rest.length > 0 && rest.join('/') !== '' ? decodeURIComponent(rest.join('/')) : null;
  return { page, id, params: new URLSearchParams(query) };
}

/**
 * A route's hash; empty params are left out.
 *
 * @example
 * routeHash('responses', 'r/1', { agent: 'sql', model: '' }) // '#/responses/r%2F1?agent=sql'
 */
export function routeHash(page: string, id: string | null = null, params: Record<string, string | undefined> = {}): string {
  const qs = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => Boolean(e[1]))).toString();
  return `#/${page}${id === null ? '' : `/${encodeURIComponent(id)}`}${qs ? `?${qs}` : ''}`;
}

/**
 * The current route, re-read on every hash change. Every change draws the page again, even one
 * that leaves the hash as it was drawn: a filter applied and a back step taken before the page drew
 * it fire two changes that both read the old hash, and a form must still show what the URL says
 * (FilterForm forgets its applied choice, ui.tsx `useDraft`).
 */
export function useRoute(): Route {
  const [{ hash }, setSeen] = useState(() => ({ hash: location.hash }));
  useEffect(() => {
    const on = () => setSeen({ hash: location.hash });
    // A change between the first render and this effect fired no listener of ours: read it now.
    // Missed, the page stayed on what the hash said at first render (a reviewer sent to
    // `#/review/<id>` right after logging in kept the queue list; a flaky CI run found it).
    on();
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return useMemo(() => parseRoute(hash), [hash]);
}
