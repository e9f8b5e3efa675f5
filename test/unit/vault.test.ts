import { describe, expect, it } from 'vitest';
import { parseKekSpec } from '../../src/encoding/kek-spec';
import { importKek, openSecret, rewrapSecret, sealSecret, VaultDecryptError, type KeyRing } from '../../src/vault/crypto';
import { sealLegacy } from '../support/legacy-vault';

const kekSpec = (version: number, fill: number) => `v${version}:${Buffer.alloc(32, fill).toString('base64')}`;
const SELLER = '0x1111111111111111111111111111111111111111';
const BUYER = '0x2222222222222222222222222222222222222222';
const ctx = { entryId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', agent: '80002:0xabc:1', owner: 'mcp_connection:a', ownerWallet: SELLER };

describe('vault envelope encryption', () => {
  it('parses only v<version>:<base64 of 32 bytes>', () => {
    expect(parseKekSpec(kekSpec(1, 1))?.version).toBe(1);
    for (const bad of [
      '',
      'v1:',
      `v0:${Buffer.alloc(32).toString('base64')}`,
      `1:${Buffer.alloc(32).toString('base64')}`,
      `v1:${Buffer.alloc(31).toString('base64')}`,
    ]) {
      expect(parseKekSpec(bad)).toBeNull();
    }
  });

  it('round-trips, with a fresh data key and IV every time', async () => {
    const ring: KeyRing = { current: await importKek(kekSpec(1, 1)) };
    const a = await sealSecret(ring, ctx, 'sk-secret');
    const b = await sealSecret(ring, ctx, 'sk-secret');
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
    expect(Buffer.from(a.ciphertext).includes(Buffer.from('sk-secret'))).toBe(false);
    expect(await openSecret(ring, ctx, a)).toBe('sk-secret');
  });

  it('refuses a ciphertext moved to another entry, agent or owner record', async () => {
    const ring: KeyRing = { current: await importKek(kekSpec(1, 1)) };
    const sealed = await sealSecret(ring, ctx, 'sk-secret');
    for (const other of [
      { ...ctx, entryId: '00000000-0000-0000-0000-000000000001' },
      { ...ctx, agent: '80002:0xabc:2' },
      { ...ctx, owner: 'mcp_connection:b' },
    ]) {
      await expect(openSecret(ring, other, sealed)).rejects.toBeInstanceOf(VaultDecryptError);
    }
  });

  it('refuses a wrong KEK and tampered bytes', async () => {
    const ring: KeyRing = { current: await importKek(kekSpec(1, 1)) };
    const sealed = await sealSecret(ring, ctx, 'sk-secret');
    await expect(openSecret({ current: await importKek(kekSpec(1, 2)) }, ctx, sealed)).rejects.toBeInstanceOf(VaultDecryptError);
    const tampered = { ...sealed, ciphertext: sealed.ciphertext.map((b, i) => (i === 20 ? b ^ 1 : b)) };
    await expect(openSecret(ring, ctx, tampered)).rejects.toBeInstanceOf(VaultDecryptError);
  });

  it('re-wraps under a new KEK without touching the ciphertext; the old KEK then cannot open it', async () => {
    const v1 = await importKek(kekSpec(1, 1));
    const v2 = await importKek(kekSpec(2, 9));
    const sealed = await sealSecret({ current: v1 }, ctx, 'sk-secret');
    const rewrapped = await rewrapSecret({ current: v2, previous: v1 }, ctx, sealed);
    expect(rewrapped.kekVersion).toBe(2);
    expect(rewrapped.ciphertext).toEqual(sealed.ciphertext);
    expect(await openSecret({ current: v2 }, ctx, rewrapped)).toBe('sk-secret');
    await expect(openSecret({ current: v1 }, ctx, rewrapped)).rejects.toBeInstanceOf(VaultDecryptError);
  });
});

describe('vault entries are bound to the wallet that entered them', () => {
  it('a row whose owner wallet was edited to another wallet, or cleared, fails to decrypt', async () => {
    const ring: KeyRing = { current: await importKek(kekSpec(1, 1)) };
    const sealed = await sealSecret(ring, ctx, 'sk-seller');
    expect(await openSecret(ring, ctx, sealed)).toBe('sk-seller');
    for (const ownerWallet of [BUYER, BUYER.toUpperCase(), null]) {
      await expect(openSecret(ring, { ...ctx, ownerWallet }, sealed)).rejects.toBeInstanceOf(VaultDecryptError);
      await expect(
        rewrapSecret({ current: await importKek(kekSpec(2, 9)), previous: ring.current }, { ...ctx, ownerWallet }, sealed),
      ).rejects.toBeInstanceOf(VaultDecryptError);
    }
  });

  it('an entry sealed before wallets were recorded still re-wraps (rotation), and does not open as anyone', async () => {
    const v1Spec = kekSpec(1, 1);
    const legacy = await sealLegacy(v1Spec, ctx, 'sk-legacy');
    const v1 = await importKek(v1Spec);
    const v2 = await importKek(kekSpec(2, 9));
    const legacyCtx = { ...ctx, ownerWallet: null };
    expect(await openSecret({ current: v1 }, legacyCtx, legacy)).toBe('sk-legacy');
    const rewrapped = await rewrapSecret({ current: v2, previous: v1 }, legacyCtx, legacy);
    expect(rewrapped.kekVersion).toBe(2);
    expect(await openSecret({ current: v2 }, legacyCtx, rewrapped)).toBe('sk-legacy');
    // claiming a wallet for it afterwards (an edited row) does not open it
    await expect(openSecret({ current: v2 }, { ...ctx, ownerWallet: SELLER }, rewrapped)).rejects.toBeInstanceOf(VaultDecryptError);
  });
});
