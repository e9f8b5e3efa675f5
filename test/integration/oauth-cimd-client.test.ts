/**
 * A real MCP client through a client metadata document: the MCP TypeScript SDK v2's `auth()`,
 * given a `clientMetadataUrl`, discovers the agent's MCP URL's metadata, sees
 * `client_id_metadata_document_supported`, uses the URL as its `client_id` (no registration),
 * checks `iss` on the way back (RFC 9207), exchanges the code, and connects with the token. The
 * owner's wallet consent in between is what the authorize page's script does. In workerd, with the
 * document on a loopback server the worker reaches as https (test/support/client-documents.ts).
 */
import {
  auth,
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { documentFor, json, startDocumentServer, type DocumentServer } from '../support/client-documents';
import { deployment } from '../support/http';
import { approve, mcpUrl, openAuthorizePage, REDIRECT_URI } from '../support/oauth';
import { closePg } from '../support/pg';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

let docs: DocumentServer;
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;

beforeAll(async () => {
  docs = await startDocumentServer();
  worker = await workerWithToolServers(stack, { docs: docs.listener.url });
});

afterAll(async () => {
  await worker?.dispose();
  await docs?.close();
  await closePg();
});

/** An MCP client's OAuth state, in memory: what a desktop client keeps between its steps. */
class DocumentClientProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  constructor(readonly clientMetadataUrl: string) {}
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'CIMD test app', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('the MCP SDK as a metadata-document client', () => {
  it('authorizes with its document URL as client_id, checks iss, and calls the agent with the token', async () => {
    const agent = await freshAgent(testnet);
    const gw = { ...testnet, baseUrl: worker.url };
    const serverUrl = mcpUrl(gw, agent.collection, agent.tokenId);
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, [REDIRECT_URI]), { 'cache-control': 'max-age=600' }));
    const provider = new DocumentClientProvider(doc.clientId);

    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    const authorizationUrl = provider.authorizationUrl;
    expect(authorizationUrl?.searchParams.get('client_id')).toBe(doc.clientId);
    expect(authorizationUrl?.searchParams.get('resource')).toBe(serverUrl);

    const page = await openAuthorizePage(String(authorizationUrl));
    expect(page.res.status, page.html.slice(0, 400)).toBe(200);
    const approved = await approve(gw, page, agent.owner);
    expect(approved.status, approved.text).toBe(200);
    const back = new URL(approved.body.redirectTo);
    const code = back.searchParams.get('code') ?? '';
    const iss = back.searchParams.get('iss') ?? '';
    expect(iss).toBe(worker.url);
    expect(await auth(provider, { serverUrl, authorizationCode: code, iss })).toBe('AUTHORIZED');
    expect(provider.tokens()?.refresh_token).toEqual(expect.any(String));

    const client = new Client({ name: 'cimd-sdk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('ask');
    } finally {
      await client.close();
    }
    expect(doc.hits()).toBe(1);
  });
});
