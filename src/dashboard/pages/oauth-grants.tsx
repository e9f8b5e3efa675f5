/**
 * On the Keys page: the apps with OAuth access to the agent (docs/keys-and-automation.md), the MCP clients this
 * wallet approved on the authorize page; revoke one (confirm). Never a token.
 */
import { useState } from 'hono/jsx/dom';
import type { AgentClient, OAuthGrant } from '../../client';
import { ConfirmButton } from '../ui/confirm';
import { when } from '../ui/format';
import { useAction, useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';

const nameOf = (g: OAuthGrant) => g.clientName ?? `client ${g.clientId}`;

export function OAuthGrantsSection({ agent }: { agent: AgentClient }) {
  const list = useLoad((signal) => agent.listOAuthGrants({ signal }), [agent]);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const grants = list.data?.grants ?? [];
  return (
    <section class="card" aria-labelledby="oauth-grants-title">
      <h2 id="oauth-grants-title">Apps with access (OAuth)</h2>
      <p class="muted">
        MCP clients you approved with your wallet for this agent's MCP server. The name is the one the app gave itself: check the client id
        if unsure.
      </p>
      {list.loading && !list.data ? <Status text="Loading the apps…" /> : null}
      {list.problem?.code === 'not_owner' ? (
        <p class="muted">Only the agent's owner sees and revokes the apps' access: this wallet is its delegate.</p>
      ) : (
        <ErrorNotice problem={list.problem} />
      )}
      {list.data && grants.length === 0 ? <p class="muted">No app has access.</p> : null}
      <ul class="list">
        {grants.map((g) => (
          <GrantItem
            key={g.id}
            item={g}
            onRevoke={async () => {
              await agent.revokeOAuthGrant(g.id);
              setStatus(`Revoked the access of ${nameOf(g)}.`);
              list.reload();
            }}
          />
        ))}
      </ul>
      <Status text={status} />
    </section>
  );
}

function GrantItem({ item: g, onRevoke }: { item: OAuthGrant; onRevoke: () => Promise<void> }) {
  const revoke = useAction();
  return (
    <li aria-label={`App ${nameOf(g)}`}>
      <div>
        <strong>{nameOf(g)}</strong> {g.refreshTokenLive ? null : <span class="badge reenter_required">no refresh token</span>}
      </div>
      <div class="meta">
        {g.resource.endsWith('/a2a') ? 'A2A endpoint' : 'MCP server'} · scope {g.scope.join(', ')} · approved {when(g.createdAt)}
      </div>
      <div class="meta mono">
        client {g.clientId} · grant {g.id}
      </div>
      <div class="actions">
        <ConfirmButton
          label="Revoke"
          question={`Revoke the access of ${nameOf(g)}? Its tokens stop working at once.`}
          confirmLabel="Yes, revoke"
          busy={revoke.busy}
          onConfirm={() => void revoke.run(onRevoke)}
        />
      </div>
      <ErrorNotice problem={revoke.problem} />
    </li>
  );
}
