/** The location hash as a route: `#/memory/a%2Fb` is `{ path: 'memory', params: ['a/b'] }`. */
export interface Route {
  path: string;
  params: string[];
}

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const [path = '', ...params] = parts.map(decode);
  return { path, params };
}

export function hashOf(path: string, ...params: string[]): string {
  return `#/${[path, ...params.map(encodeURIComponent)].join('/')}`;
}
