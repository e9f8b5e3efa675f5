/** `v<version>:<base64 of 32 bytes>`, e.g. `v1:3q2+7w...=`. */
export const KEK_FORMAT = /^v([1-9][0-9]{0,5}):([A-Za-z0-9+/]{43}=)$/;

export function parseKekSpec(spec: string): { version: number; bytes: Uint8Array } | null {
  const match = KEK_FORMAT.exec(spec.trim());
  if (!match) return null;
  const bytes = Uint8Array.from(atob(match[2]!), (c) => c.charCodeAt(0));
  return bytes.length === 32 ? { version: Number(match[1]), bytes } : null;
}
