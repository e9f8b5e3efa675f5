/** The request log's credential kind, read from the Authorization header's form (issue 33: an OAuth app's calls were logged as `none`). */
import { describe, expect, it } from 'vitest';
import { credentialOf } from '../../src/http/request-log';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('credentialOf', () => {
  it('tells an OAuth access token (oauth) from a JWT, an agent key and anything else', () => {
    expect(credentialOf(`Bearer ${WALLET}.${COLLECTION}.7:AbCdEf0123456789:${'x'.repeat(32)}`)).toBe('oauth');
    expect(credentialOf('Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweCJ9.c2ln')).toBe('jwt');
    expect(credentialOf(`Bearer agk_${'a'.repeat(32)}`)).toBe('agent_key');
    expect(credentialOf(undefined)).toBe('none');
    expect(credentialOf('Bearer not-a-token')).toBe('none');
    expect(credentialOf('Basic dXNlcjpwYXNz')).toBe('none');
  });

  it('reads the Bearer scheme in any case, as the gate does', () => {
    expect(credentialOf(`bearer agk_${'a'.repeat(32)}`)).toBe('agent_key');
    expect(credentialOf('BEARER eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweCJ9.c2ln')).toBe('jwt');
    expect(credentialOf(`bEaReR ${WALLET}.${COLLECTION}.7:AbCdEf0123456789:${'x'.repeat(32)}`)).toBe('oauth');
    expect(credentialOf(`bearerx agk_${'a'.repeat(32)}`)).toBe('none');
  });
});
