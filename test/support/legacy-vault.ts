/**
 * Seals a secret the way vault entries were sealed before owner wallets were recorded (migration
 * 0006): additional data v1 binds entry, agent and record, no wallet. Written out independently of
 * src/vault/crypto.ts, so tests prove such entries still open and rotate.
 */
export async function sealLegacy(kekSpec: string, ctx: { entryId: string; agent: string; owner: string }, plaintext: string) {
  const enc = new TextEncoder();
  const bound = `${ctx.entryId}|${ctx.agent}|${ctx.owner}`;
  const kekVersion = Number(kekSpec.slice(1, kekSpec.indexOf(':')));
  const gcm = async (raw: Uint8Array, data: Uint8Array, aad: string) => {
    const key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt']);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: enc.encode(aad) }, key, data));
    return new Uint8Array([...iv, ...ct]);
  };
  const dataKey = crypto.getRandomValues(new Uint8Array(32));
  const kek = new Uint8Array(Buffer.from(kekSpec.slice(kekSpec.indexOf(':') + 1), 'base64'));
  return {
    kekVersion,
    ciphertext: await gcm(dataKey, enc.encode(plaintext), `agent-gateway/vault/data/v1|${bound}`),
    wrappedKey: await gcm(kek, dataKey, `agent-gateway/vault/key/v1|${bound}|kek:${kekVersion}`),
  };
}
