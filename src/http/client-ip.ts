/**
 * The rate-limit key of a client address (`CF-Connecting-IP`), or null when the address is not a
 * real public one: absent, unparsable, loopback, private, link-local, CGNAT, ULA, unspecified,
 * multicast or broadcast. Local requests (tests, `npm run dev`) come from loopback, so they are
 * never limited per IP. An IPv6 client is keyed by its /64, the block one subscriber usually holds.
 */
export function publicClientKey(header: string | undefined): string | null {
  const value = header?.trim() ?? '';
  const v4 = parseIpv4(value);
  if (v4) return isPublicIpv4(v4) ? `ip4:${v4.join('.')}` : null;
  const v6 = parseIpv6(value);
  if (!v6) return null;
  // IPv4-mapped (::ffff:a.b.c.d): judge and key the IPv4 address.
  if (v6.slice(0, 5).every((h) => h === 0) && v6[5] === 0xffff) {
    const mapped = [v6[6]! >> 8, v6[6]! & 255, v6[7]! >> 8, v6[7]! & 255];
    return isPublicIpv4(mapped) ? `ip4:${mapped.join('.')}` : null;
  }
  if (!isPublicIpv6(v6)) return null;
  return `ip6:${v6
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(':')}::/64`;
}

function parseIpv4(text: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

function isPublicIpv4([a, b]: number[]): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false; // this network, private, loopback, multicast, reserved, broadcast
  if (a === 100 && b >= 64 && b <= 127) return false; // CGNAT 100.64/10
  if (a === 169 && b === 254) return false; // link-local
  if (a === 172 && b >= 16 && b <= 31) return false; // private 172.16/12
  if (a === 192 && b === 168) return false; // private 192.168/16
  return true;
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a trailing dotted IPv4 part. */
function parseIpv6(text: string): number[] | null {
  if (!/^[0-9a-f:.]{2,45}$/i.test(text) || !text.includes(':')) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

function isPublicIpv6(groups: number[]): boolean {
  const first = groups[0]!;
  if (groups.every((g) => g === 0)) return false; // unspecified
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return false; // loopback
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  return true;
}
