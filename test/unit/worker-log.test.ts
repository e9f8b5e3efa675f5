/**
 * The scan the test harness runs over the whole suite's worker log (test/support/global-setup.ts):
 * it must find each kind of secret the suite uses, and pass the lines the gateway writes.
 */
import { describe, expect, it } from 'vitest';
import { requestLines, secretsInLog } from '../support/worker-log';

const uuid = '0f8e2c1a-4b7d-4e9f-8a6b-1c2d3e4f5a6b';
const requestLine = JSON.stringify({
  level: 'info',
  event: 'request',
  requestId: uuid,
  method: 'POST',
  route: '/agent/:agentCollectionAddress/:agentTokenId/context/:contextKey/reply',
  status: 200,
  durationMs: 12,
  chainId: 80002,
  agent: '0x5fbdb2315678afecb367f032d93f642f64180aa3/7',
  credential: 'agent_key',
});
const errorLine = JSON.stringify({
  level: 'error',
  requestId: uuid,
  code: 'database_unavailable',
  reason: 'Error: connect to postgresql://***@127.0.0.1:5433/gateway failed',
});

describe('secretsInLog', () => {
  it('passes what the gateway writes: request lines, scrubbed error lines, warnings', () => {
    const text = [requestLine, errorLine, '{"level":"warn","warning":"search indexing failed: TypeError"}', ''].join('\n');
    expect(secretsInLog(text, ['a-harness-secret-value'])).toEqual([]);
  });

  it.each([
    ['access token (JWT)', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweDEifQ.c2lnbmF0dXJl'],
    ['agent key', `key agk_${'a'.repeat(32)}`],
    ['planted secret', `header SECRET-header-${uuid}`],
    ['test API key or bearer token', `apiKey sk-standin-${uuid}`],
    ['test API key or bearer token', `bearer switch-bearer-${uuid}`],
    ['test API key or bearer token', `key plain-key-${uuid}`],
    ['database URL with its password', 'postgresql://reader:s3cret@db.example/app'],
  ])('finds a %s', (kind, secret) => {
    expect(secretsInLog([requestLine, `{"level":"error","reason":"${secret}"}`].join('\n'))).toEqual([{ line: 2, kind }]);
  });

  it('finds a harness secret by its value (8 characters or more)', () => {
    expect(secretsInLog(`x\nthe kek v1:c2VjcmV0LWtleQ== here`, ['v1:c2VjcmV0LWtleQ==', 'short'])).toEqual([
      { line: 2, kind: 'harness secret' },
    ]);
  });
});

describe('requestLines', () => {
  it('reads the request lines of a log, nothing else', () => {
    expect(requestLines([errorLine, requestLine, 'plain text'].join('\n'))).toEqual([JSON.parse(requestLine)]);
  });
});
