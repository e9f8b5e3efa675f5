import { describe, expect, it } from 'vitest';
import { AddressSchema, TokenIdSchema, isWalletAddress } from '../../src/identity/identity';
import { isAcceptedSignatureShape } from '../../src/auth/signature';
import { compileRouteTable } from '../../src/http/routes-table';
import { scrubLogLine } from '../../src/scrub';

describe('AddressSchema', () => {
  const checksummed = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  it('accepts the checksummed, lower-case and upper-case spellings and returns the checksum', () => {
    for (const spelling of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
      expect(AddressSchema.parse(spelling)).toBe(checksummed);
    }
  });
  it.each([
    ['bad checksum', '0x5fbDB2315678afecb367f032d93F642f64180aa3'],
    ['not hex', '0x5FbDB2315678afecb367f032d93F642f64180aaG'],
    ['too short', checksummed.slice(0, 41)],
    ['too long', `${checksummed}0`],
    ['no prefix', checksummed.slice(2)],
    ['empty', ''],
  ])('rejects %s', (_, value) => {
    expect(AddressSchema.safeParse(value).success).toBe(false);
    expect(isWalletAddress(value)).toBe(false);
  });
});

describe('TokenIdSchema', () => {
  it.each(['0', '1', '42', (2n ** 256n - 1n).toString()])('accepts %s', (value) => {
    expect(TokenIdSchema.parse(value)).toBe(BigInt(value));
  });
  it.each(['-1', '+1', '0x10', '1e3', '01', '00', '1.0', ' 1', '1 ', '', 'abc', (2n ** 256n).toString(), '9'.repeat(79)])(
    'rejects %j with one clear issue',
    (value) => {
      const result = TokenIdSchema.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toHaveLength(1);
    },
  );
});

describe('isAcceptedSignatureShape', () => {
  const sig = (bytes: number) => `0x${'ab'.repeat(bytes)}`;
  it('accepts 65 bytes, whole multiples up to 16 signers, and ERC-6492 wrappers', () => {
    expect(isAcceptedSignatureShape(sig(65))).toBe(true);
    expect(isAcceptedSignatureShape(sig(130))).toBe(true);
    expect(isAcceptedSignatureShape(sig(65 * 16))).toBe(true);
    expect(isAcceptedSignatureShape(`${sig(200)}${'6492'.repeat(16)}`)).toBe(true);
  });
  it('rejects other lengths, odd digits, non-hex and empty', () => {
    for (const value of [
      sig(64),
      sig(66),
      sig(65 * 17),
      `${sig(65)}a`,
      `0x${'zz'.repeat(65)}`,
      '0x',
      'ab'.repeat(65),
      `0x${'ab'.repeat(16 * 1024 + 1)}${'6492'.repeat(16)}`,
    ]) {
      expect(isAcceptedSignatureShape(value)).toBe(false);
    }
  });
});

describe('compileRouteTable', () => {
  const table = compileRouteTable([
    { method: 'ALL', path: '*' },
    { method: 'GET', path: '/health' },
    { method: 'POST', path: '/agent/:a/:t/context' },
    { method: 'GET', path: '/agent/:a/:t' },
  ]);
  it('lists the methods a concrete path accepts (GET implies HEAD), ignoring middleware', () => {
    expect(table.methodsFor('/health')).toEqual(['GET', 'HEAD']);
    expect(table.methodsFor('/agent/0xabc/1/context')).toEqual(['POST']);
    expect(table.methodsFor('/agent/0xabc/1')).toEqual(['GET', 'HEAD']);
    expect(table.methodsFor('/agent/0xabc/1/other')).toEqual([]);
    expect(table.methodsFor('/healthz')).toEqual([]);
  });
});

describe('scrubLogLine', () => {
  it('strips URL credentials and JWT-shaped strings from log lines', () => {
    const line = scrubLogLine('connect to postgresql://user:hunter2@db.example/x failed; token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig');
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain('eyJzdWIiOiIxIn0');
    expect(line).toContain('postgresql://***@db.example/x');
  });
});
