const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * RFC 4648 base32 in lower case without padding (`a-z2-7`, 5 bits a character), cut to
 * `length` characters: safe in identifiers, URLs and headers, and case-insensitive.
 */
export function base32(bytes: Uint8Array, length: number): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}
