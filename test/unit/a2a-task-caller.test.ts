/** Who owns an A2A task: named as usage names the credential, an OAuth app apart from its wallet and from other apps. */
import { describe, expect, it } from 'vitest';
import { callerId, MAX_CALLER_LENGTH } from '../../src/a2a/task-store';
import { oauthCredential } from '../../src/usage/record.service';

const WALLET = '0xAbCdEf0000000000000000000000000000000001';

describe('callerId', () => {
  it('names a key, a wallet and an OAuth app as usage does', async () => {
    expect(await callerId({ keyId: 'k1' })).toBe('key:k1');
    expect(await callerId({ wallet: WALLET })).toBe(`wallet:${WALLET.toLowerCase()}`);
    expect(await callerId({ wallet: WALLET, clientId: 'app-a' })).toBe(oauthCredential(WALLET.toLowerCase(), 'app-a'));
  });

  it('keeps two OAuth apps of one wallet apart, and apart from the wallet itself', async () => {
    const a = await callerId({ wallet: WALLET, clientId: 'app-a' });
    const b = await callerId({ wallet: WALLET, clientId: 'app-b' });
    expect(new Set([a, b, await callerId({ wallet: WALLET })]).size).toBe(3);
  });

  it("fits a long client id (a metadata document's URL) in the table's bound, still one name per client", async () => {
    const long = (n: string) => `https://apps.example/${'x'.repeat(300)}/${n}/client.json`;
    const a = await callerId({ wallet: WALLET, clientId: long('a') });
    const b = await callerId({ wallet: WALLET, clientId: long('b') });
    expect(a.length).toBeLessThanOrEqual(MAX_CALLER_LENGTH);
    expect(a).toMatch(/^oauth:0xabcdef0{33}1:#[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(await callerId({ wallet: WALLET, clientId: long('a') })).toBe(a);
  });
});
