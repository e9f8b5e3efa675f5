/**
 * The gate's one eth_call runs the creation code of contracts/AgentAccessLens.sol, kept as a hex
 * constant in src/chain/access-lens-code.ts. This test recompiles the source with the project's
 * solc and the dev contracts' settings and fails when the constant is stale, so the constant is
 * checked source, never an unchecked artifact. `UPDATE_ACCESS_LENS=1` rewrites the constant.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ACCESS_LENS_CREATION_CODE, ACCESS_LENS_SOURCE_SHA256 } from '../../src/chain/access-lens-code';

const SOURCE = 'contracts/AgentAccessLens.sol';
const CONSTANT_FILE = 'src/chain/access-lens-code.ts';

interface SolcOutput {
  errors?: { severity: string; formattedMessage?: string; message: string }[];
  contracts?: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
}

async function compileLens(source: string): Promise<string> {
  const { default: solc } = await import('solc');
  const input = {
    language: 'Solidity',
    sources: { [SOURCE]: { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage ?? e.message).join('\n'));
  const object = output.contracts?.[SOURCE]?.AgentAccessLens?.evm.bytecode.object;
  if (!object) throw new Error('no bytecode for AgentAccessLens');
  return `0x${object}`;
}

function constantFile(hash: string, code: string): string {
  return [
    '/**',
    ' * The creation code of contracts/AgentAccessLens.sol (solc of package.json, optimizer 200 runs,',
    ' * evmVersion cancun) and the sha256 of the source it was compiled from. Generated: a unit test',
    ' * (test/unit/access-lens-code.test.ts) recompiles the source and fails when this is stale;',
    ' * `UPDATE_ACCESS_LENS=1 npx vitest run --project unit test/unit/access-lens-code.test.ts` rewrites it.',
    ' */',
    "import type { Hex } from 'viem';",
    '',
    `export const ACCESS_LENS_SOURCE_SHA256 = '${hash}';`,
    '',
    'export const ACCESS_LENS_CREATION_CODE: Hex = `0x${[',
    ...(code.slice(2).match(/.{1,128}/g) ?? []).map((chunk) => `  '${chunk}',`),
    "].join('')}`;",
    '',
  ].join('\n');
}

describe('the access lens creation code', () => {
  it('is the compiled contracts/AgentAccessLens.sol', async () => {
    const source = await readFile(SOURCE, 'utf8');
    const hash = createHash('sha256').update(source).digest('hex');
    const code = await compileLens(source);
    if (process.env.UPDATE_ACCESS_LENS === '1') await writeFile(CONSTANT_FILE, constantFile(hash, code));
    expect(ACCESS_LENS_SOURCE_SHA256, 'the source changed: regenerate with UPDATE_ACCESS_LENS=1').toBe(hash);
    expect(ACCESS_LENS_CREATION_CODE, 'the compiled code differs: regenerate with UPDATE_ACCESS_LENS=1').toBe(code);
  }, 60_000);
});
