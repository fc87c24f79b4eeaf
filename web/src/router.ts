// Hash routes: a page and its state (#/hosts?page=2&sort=traffic) live in
// the address, so a reload or a shared link shows the same view.

export interface Route {
  path: string;
  params: URLSearchParams;
}

export interface PageProps {
  ifid: number;
  route: Route;
}

export function readRoute(): Route {
  const h = location.hash.replace(/^#/, '') || '/';
  const [path, q] = h.split('?');
  return { path: path || '/', params: new URLSearchParams(q ?? '') };
}

/** Goes to a page; params with '' or undefined are left out. */
export function go(path: string, params: Record<string, string | number | undefined> = {}): void {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') u.set(k, String(v));
  const q = u.toString();
  location.hash = `#${path}${q ? `?${q}` : ''}`;
}

/** A number from the route's params, or the fallback. */
export function num(r: Route, key: string, fallback: number): number {
  const v = Number(r.params.get(key));
  return r.params.has(key) && Number.isFinite(v) ? v : fallback;
}
