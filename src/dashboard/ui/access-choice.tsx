/**
 * The owner's choice of who besides them may use the agent (LLM settings' `access`): delegates
 * (wallets the owner delegated to with delegate.xyz) and renters (ERC-4907 users while a rental
 * runs). Shown to the owner only: the gateway refuses anyone else's change of it.
 */
import type { AgentAccess } from '../../client';
import { SelectField } from './controls';

export const DEFAULT_ACCESS: AgentAccess = { delegates: 'use', renters: 'use' };

const DELEGATE_LEVELS = ['none', 'use', 'admin'] as const;
const RENTER_LEVELS = ['none', 'use'] as const;

const isDelegateLevel = (v: string): v is AgentAccess['delegates'] => (DELEGATE_LEVELS as readonly string[]).includes(v);
const isRenterLevel = (v: string): v is AgentAccess['renters'] => (RENTER_LEVELS as readonly string[]).includes(v);

export function AccessChoice(props: { value: AgentAccess; onChange: (value: AgentAccess) => void }) {
  const { value, onChange } = props;
  return (
    <fieldset class="access">
      <legend>Who else may use this agent</legend>
      <p class="muted" id="access-help">
        Delegates are wallets you named with delegate.xyz (all your tokens, this collection or this token; full rights or the right{' '}
        <code>agent-gateway</code>); renters hold the token's ERC-4907 rental while it runs. <strong>use</strong>: replies, chat, memory,
        the agent's MCP server and A2A. <strong>admin</strong> (delegates only): also these settings, templates, tool servers, keys and the
        profile, never a stored secret and never this choice. Replies of either run on your model key. Usage and the audit trail stay yours,
        and name them.
      </p>
      <div class="grid">
        <SelectField
          label="Delegates may"
          name="accessDelegates"
          value={value.delegates}
          options={DELEGATE_LEVELS}
          onChange={(v) => {
            if (isDelegateLevel(v)) onChange({ ...value, delegates: v });
          }}
        />
        <SelectField
          label="Renters may"
          name="accessRenters"
          value={value.renters}
          options={RENTER_LEVELS}
          onChange={(v) => {
            if (isRenterLevel(v)) onChange({ ...value, renters: v });
          }}
        />
      </div>
    </fieldset>
  );
}
