/**
 * Vault key rotation on databases of its own: entries sealed under KEK v1 are
 * re-wrapped under v2 by `rotateVault` (data keys only; the ciphertext stays), open with a ring
 * holding only v2 and no longer with v1 alone; a rerun has nothing to do; the real script
 * (`npm run vault:rotate`) re-wraps to v3; a ciphertext copied onto another row does not open; an
 * entry from before owner wallets were recorded re-wraps, one edited to name another wallet does not.
 * Last, the whole procedure with running gateways: a credential registered under v1 keeps
 * working through a worker holding v2 + previous v1, the rotation, and a worker holding v2 only.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrateGateway, REPO_ROOT } from '../../scripts/lib/migrate';
import { ensureDatabase } from '../../scripts/lib/postgres';
import { registerCollection } from '../../scripts/lib/collections';
import { freshAgent } from '../support/agent';
import { call, deployment, errorCode } from '../support/http';
import { agentPath } from '../support/login';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';
import type { SqlPool } from '../../src/storage/sql-client';
import { importKek, openSecret, sealSecret, VaultDecryptError, type Kek, type KeyRing, type SecretContext } from '../../src/vault/crypto';
import { rotateVault, type RotationProgress } from '../../src/vault/rotate';
import { sealLegacy } from '../support/legacy-vault';

const stack = inject('stack');
const testnet = deployment('testnet');
// Databases of its own: rotation walks every vault entry it finds.
const database = `vault_${randomBytes(4).toString('hex')}`;
const databaseUrl = stack.postgresAdminUrl.replace(/\/postgres$/, `/${database}`);
const gatewayDatabase = `vault_gw_${randomBytes(4).toString('hex')}`;
const gatewayDatabaseUrl = stack.postgresAdminUrl.replace(/\/postgres$/, `/${gatewayDatabase}`);
const API_KEY = `SECRET-rotation-${crypto.randomUUID()}`;
let plain: TestServer;
let pool: pg.Pool;
const sqlPool = () => pool as unknown as SqlPool;

const kekSpec = (version: number) => `v${version}:${randomBytes(32).toString('base64')}`;
const SPECS = { v1: kekSpec(1), v2: kekSpec(2), v3: kekSpec(3) };
let v1: Kek;
let v2: Kek;
let v3: Kek;

interface Entry {
  id: string;
  chainId: number;
  collection: string;
  tokenId: string;
  owner: string;
  ownerWallet: string;
  secret: string;
}

const entries: Entry[] = Array.from({ length: 7 }, (_, i) => ({
  id: crypto.randomUUID(),
  chainId: 80002,
  collection: `0x${randomBytes(20).toString('hex')}`,
  tokenId: String(1000 + i),
  owner: i === 0 ? 'llm_settings' : `mcp_connection:${crypto.randomUUID()}`,
  ownerWallet: `0x${randomBytes(20).toString('hex')}`,
  secret: `SECRET-${i}-${crypto.randomUUID()}`,
}));

const context = (e: Entry): SecretContext & { ownerWallet: string } => ({
  entryId: e.id,
  agent: `${e.chainId}:${e.collection}:${e.tokenId}`,
  owner: e.owner,
  ownerWallet: e.ownerWallet,
});

interface Row {
  id: string;
  kek_version: number;
  wrapped_key: Buffer;
  ciphertext: Buffer;
}

async function insertSealed(ring: KeyRing, entry: Entry): Promise<void> {
  const sealed = await sealSecret(ring, context(entry), entry.secret);
  await pool.query(
    `insert into gateway.vault_entries (id, chain_id, collection, token_id, owner, owner_wallet, kek_version, wrapped_key, ciphertext)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      entry.id,
      entry.chainId,
      entry.collection,
      entry.tokenId,
      entry.owner,
      entry.ownerWallet,
      sealed.kekVersion,
      sealed.wrappedKey,
      sealed.ciphertext,
    ],
  );
}

async function row(id: string): Promise<Row> {
  const { rows } = await pool.query<Row>('select id, kek_version, wrapped_key, ciphertext from gateway.vault_entries where id = $1', [id]);
  if (rows.length !== 1) throw new Error(`no vault entry ${id}`);
  return rows[0]!;
}

async function open(ring: KeyRing, entry: Entry, stored?: Row): Promise<string> {
  const r = stored ?? (await row(entry.id));
  return openSecret(ring, context(entry), {
    kekVersion: r.kek_version,
    wrappedKey: new Uint8Array(r.wrapped_key),
    ciphertext: new Uint8Array(r.ciphertext),
  });
}

async function versions(): Promise<number[]> {
  const { rows } = await pool.query<{ kek_version: number }>('select kek_version from gateway.vault_entries order by id');
  return rows.map((r) => r.kek_version);
}

beforeAll(async () => {
  plain = await startPlainServer({ apiKey: API_KEY });
  await Promise.all([ensureDatabase(stack.postgresAdminUrl, database), ensureDatabase(stack.postgresAdminUrl, gatewayDatabase)]);
  await Promise.all([migrateGateway(databaseUrl), migrateGateway(gatewayDatabaseUrl)]);
  await registerCollection(gatewayDatabaseUrl, { chainId: testnet.chainId, address: testnet.collection, kind: 'internal' });
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  [v1, v2, v3] = await Promise.all([importKek(SPECS.v1), importKek(SPECS.v2), importKek(SPECS.v3)]);
  for (const entry of entries) await insertSealed({ current: v1 }, entry);
});

afterAll(async () => {
  await pool?.end();
  await plain?.close();
  const admin = new pg.Client({ connectionString: stack.postgresAdminUrl });
  await admin.connect();
  for (const name of [database, gatewayDatabase]) await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe('vault key rotation', () => {
  it('starts with every entry sealed under KEK v1', async () => {
    expect(await versions()).toEqual(entries.map(() => 1));
    for (const entry of entries) expect(await open({ current: v1 }, entry)).toBe(entry.secret);
  });

  it('re-wraps every entry under v2 in batches; the ciphertext stays; only v2 opens them', async () => {
    const before = new Map(await Promise.all(entries.map(async (e) => [e.id, await row(e.id)] as const)));
    const seen: RotationProgress[] = [];
    const result = await rotateVault(sqlPool(), { current: v2, previous: v1 }, { batchSize: 3, onProgress: (p) => seen.push(p) });
    expect(result).toEqual({ done: entries.length, total: entries.length, failed: 0, failures: [] });
    expect(seen[0]).toEqual({ done: 0, total: entries.length, failed: 0 });
    expect(seen.at(-1)).toEqual({ done: entries.length, total: entries.length, failed: 0 });

    expect(await versions()).toEqual(entries.map(() => 2));
    for (const entry of entries) {
      const after = await row(entry.id);
      const old = before.get(entry.id)!;
      expect(after.ciphertext.equals(old.ciphertext)).toBe(true);
      expect(after.wrapped_key.equals(old.wrapped_key)).toBe(false);
      expect(await open({ current: v2 }, entry, after)).toBe(entry.secret);
      await expect(open({ current: v1 }, entry, after)).rejects.toBeInstanceOf(VaultDecryptError);
      // another key that claims version 2 does not open it either
      await expect(open({ current: await importKek(kekSpec(2)) }, entry, after)).rejects.toBeInstanceOf(VaultDecryptError);
    }
  });

  it('has nothing left to do on a second run', async () => {
    const rerun = await rotateVault(sqlPool(), { current: v2, previous: v1 });
    expect(rerun).toEqual({ done: 0, total: 0, failed: 0, failures: [] });
    expect(await versions()).toEqual(entries.map(() => 2));
  });

  it('the script (npm run vault:rotate) re-wraps everything to v3 and exits 0', async () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/vault-rotate.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, VAULT_KEK: SPECS.v3, VAULT_KEK_PREVIOUS: SPECS.v2 },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`re-wrapped ${entries.length} secret(s) under KEK v3, 0 failed`);
    for (const spec of Object.values(SPECS)) expect(`${run.stdout}${run.stderr}`).not.toContain(spec.slice(3));
    expect(await versions()).toEqual(entries.map(() => 3));
    for (const entry of entries) {
      expect(await open({ current: v3 }, entry)).toBe(entry.secret);
      await expect(open({ current: v2 }, entry)).rejects.toBeInstanceOf(VaultDecryptError);
    }
  });

  it('the script refuses to run without both keys, or with one version twice', () => {
    const env = { ...process.env, DATABASE_URL: databaseUrl };
    for (const extra of [{ VAULT_KEK: SPECS.v3 }, { VAULT_KEK: SPECS.v3, VAULT_KEK_PREVIOUS: kekSpec(3) }]) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/vault-rotate.ts'], {
        cwd: REPO_ROOT,
        env: { ...env, VAULT_KEK_PREVIOUS: '', ...extra },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).not.toBe(0);
    }
  });
});

describe('vault entries are bound to their row', () => {
  it("a row carrying another entry's wrapped key and ciphertext does not open; rotation reports it and goes on", async () => {
    const v7 = await importKek(kekSpec(7));
    const v8 = await importKek(kekSpec(8));
    const [a, b] = Array.from(
      { length: 2 },
      (_, i): Entry => ({
        id: crypto.randomUUID(),
        chainId: 80002,
        collection: `0x${randomBytes(20).toString('hex')}`,
        tokenId: String(i + 1),
        owner: `mcp_connection:${crypto.randomUUID()}`,
        ownerWallet: `0x${randomBytes(20).toString('hex')}`,
        secret: `SECRET-swap-${i}-${crypto.randomUUID()}`,
      }),
    ) as [Entry, Entry];
    try {
      for (const entry of [a, b]) await insertSealed({ current: v7 }, entry);
      const fromA = await row(a.id);
      await pool.query('update gateway.vault_entries set wrapped_key = $2, ciphertext = $3 where id = $1', [
        b.id,
        fromA.wrapped_key,
        fromA.ciphertext,
      ]);

      await expect(open({ current: v7 }, b)).rejects.toBeInstanceOf(VaultDecryptError);
      expect(await open({ current: v7 }, a)).toBe(a.secret);

      const result = await rotateVault(sqlPool(), { current: v8, previous: v7 });
      const failedIds = result.failures.map((f) => f.id);
      expect(failedIds).toContain(b.id);
      expect(failedIds).not.toContain(a.id);
      expect((await row(a.id)).kek_version).toBe(8);
      expect((await row(b.id)).kek_version).toBe(7);
      expect(await open({ current: v8 }, a)).toBe(a.secret);
    } finally {
      await pool.query('delete from gateway.vault_entries where id = any($1::uuid[])', [[a.id, b.id]]);
    }
  });
});

describe('entries and their owner wallet', () => {
  it('an entry from before owner wallets (owner_wallet null) re-wraps; one edited to name another wallet fails and is reported', async () => {
    const spec12 = kekSpec(12);
    const [v12, v13] = await Promise.all([importKek(spec12), importKek(kekSpec(13))]);
    const legacy: Entry = { ...entries[1]!, id: crypto.randomUUID(), ownerWallet: '', secret: `SECRET-legacy-${crypto.randomUUID()}` };
    const edited: Entry = { ...entries[2]!, id: crypto.randomUUID(), secret: `SECRET-edited-${crypto.randomUUID()}` };
    const legacyCtx = { ...context(legacy), ownerWallet: null };
    try {
      const sealed = await sealLegacy(spec12, legacyCtx, legacy.secret);
      await pool.query(
        `insert into gateway.vault_entries (id, chain_id, collection, token_id, owner, owner_wallet, kek_version, wrapped_key, ciphertext)
         values ($1, $2, $3, $4, $5, null, $6, $7, $8)`,
        [
          legacy.id,
          legacy.chainId,
          legacy.collection,
          legacy.tokenId,
          legacy.owner,
          sealed.kekVersion,
          sealed.wrappedKey,
          sealed.ciphertext,
        ],
      );
      await insertSealed({ current: v12 }, edited);
      expect(await open({ current: v12 }, edited)).toBe(edited.secret); // opens before the edit
      await pool.query('update gateway.vault_entries set owner_wallet = $2 where id = $1', [
        edited.id,
        `0x${randomBytes(20).toString('hex')}`,
      ]);

      const result = await rotateVault(sqlPool(), { current: v13, previous: v12 });
      const failedIds = result.failures.map((f) => f.id);
      expect(failedIds).not.toContain(legacy.id);
      expect(failedIds).toContain(edited.id);
      expect((await row(edited.id)).kek_version).toBe(12);
      const r = await row(legacy.id);
      expect(r.kek_version).toBe(13);
      expect(
        await openSecret({ current: v13 }, legacyCtx, {
          kekVersion: r.kek_version,
          wrappedKey: new Uint8Array(r.wrapped_key),
          ciphertext: new Uint8Array(r.ciphertext),
        }),
      ).toBe(legacy.secret);
    } finally {
      await pool.query('delete from gateway.vault_entries where id = any($1::uuid[])', [[legacy.id, edited.id]]);
    }
  });
});

describe('rotation with running gateways', () => {
  it('a credential sealed under v1 works through v2 + previous v1, the rotation, and v2 alone', async () => {
    const keys = { v1: kekSpec(1), v2: kekSpec(2) };
    const agent = await freshAgent(testnet);
    const path = (rest: string) => agentPath(agent.collection, agent.tokenId, rest);
    /** Starts a gateway on the rotation database with these keys, runs `use`, and stops it. */
    async function withGateway<T>(kek: { VAULT_KEK: string; VAULT_KEK_PREVIOUS?: string }, use: (url: string) => Promise<T>): Promise<T> {
      const worker = await workerWithToolServers(stack, { plain: plain.url }, { DATABASE_URL: gatewayDatabaseUrl, ...kek });
      try {
        return await use(worker.url);
      } finally {
        await worker.dispose();
      }
    }
    const echo = (url: string, id: string) =>
      call(url, path(`/mcp/connection/${id}/tools/call`), {
        token: agent.token,
        method: 'POST',
        json: { name: 'echo', arguments: { text: 'still here' } },
      });

    const id = await withGateway({ VAULT_KEK: keys.v1 }, async (url) => {
      const res = await call(url, path('/mcp/connection'), {
        token: agent.token,
        method: 'POST',
        json: { url: toolServerUrl('plain', plain.url), auth: { type: 'header', headerName: 'x-api-key', value: API_KEY } },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.id as string;
    });
    const gw = new pg.Pool({ connectionString: gatewayDatabaseUrl, max: 2 });
    try {
      const version = async () =>
        (
          await gw.query<{ kek_version: number }>('select kek_version from gateway.vault_entries where owner = $1', [
            `mcp_connection:${id}`,
          ])
        ).rows.map((r) => r.kek_version);
      expect(await version()).toEqual([1]);

      // step 1: the gateway holds the new key and the previous one
      await withGateway({ VAULT_KEK: keys.v2, VAULT_KEK_PREVIOUS: keys.v1 }, async (url) => {
        const res = await echo(url, id);
        expect(res.status, res.text).toBe(200);
        expect(res.body.content).toEqual([{ type: 'text', text: 'still here' }]);
      });
      // step 2: rotate
      const result = await rotateVault(gw as unknown as SqlPool, { current: await importKek(keys.v2), previous: await importKek(keys.v1) });
      expect(result).toMatchObject({ done: 1, total: 1, failed: 0 });
      expect(await version()).toEqual([2]);
      // step 3: the previous key is gone; the credential still opens. A gateway left on v1 alone cannot open it (500, no secret).
      await withGateway({ VAULT_KEK: keys.v2 }, async (url) => {
        const res = await echo(url, id);
        expect(res.status, res.text).toBe(200);
      });
      await withGateway({ VAULT_KEK: keys.v1 }, async (url) => {
        const res = await echo(url, id);
        expect(res.status, res.text).toBe(500);
        expect(errorCode(res)).toBe('internal_error');
        expect(res.text).not.toContain(API_KEY);
      });
      expect(plain.requests.every((r) => r.headers['x-api-key'] === API_KEY)).toBe(true);
    } finally {
      await gw.end();
    }
  });
});
