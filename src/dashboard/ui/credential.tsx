/**
 * A tool server's credential as a form takes it: none, a bearer token, a header of the server's
 * own (name and value), or OAuth (the owner authorizes the gateway at the server's authorization
 * server; optional scopes and a client registered there beforehand). A value or client secret is
 * write-only: sent once, stored in the vault, never shown.
 */
import type { ToolServerAuthInput } from '../../client';
import { SecretField, SelectField } from './controls';
import { Field } from './field';

const AUTH_TYPES = ['none', 'bearer', 'header', 'oauth'] as const satisfies readonly ToolServerAuthInput['type'][];
type AuthType = (typeof AUTH_TYPES)[number];

/** A scope as the gateway takes it: printable, no space, quote or backslash. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

export interface CredentialForm {
  type: AuthType;
  headerName: string;
  /** The token or header value; for OAuth, the client secret (optional). */
  value: string;
  /** OAuth: scopes separated by spaces or commas (empty: the server's own choice). */
  scopes: string;
  /** OAuth: a client registered at the authorization server beforehand (empty: none). */
  clientId: string;
}

export const NO_CREDENTIAL: CredentialForm = { type: 'none', headerName: 'x-api-key', value: '', scopes: '', clientId: '' };

const scopeList = (text: string) => text.split(/[\s,]+/).filter((s) => s !== '');

type Problems = { headerName?: string | undefined; value?: string | undefined; scopes?: string | undefined };

/** What is missing, in words (undefined: nothing). */
export function credentialProblems(c: CredentialForm): Problems {
  if (c.type === 'oauth') {
    const bad = scopeList(c.scopes).find((s) => !SCOPE.test(s));
    return {
      scopes: bad === undefined ? undefined : `"${bad}" is not a scope: printable characters, no quote or backslash.`,
      value: c.value !== '' && c.clientId.trim() === '' ? 'A client secret goes with a client ID: enter both, or neither.' : undefined,
    };
  }
  return {
    headerName: c.type === 'header' && c.headerName.trim() === '' ? 'Enter the header name.' : undefined,
    value: c.type !== 'none' && c.value === '' ? 'Enter the credential value.' : undefined,
  };
}

/** Whether the form can be sent as it is. */
export function credentialReady(c: CredentialForm): boolean {
  return Object.values(credentialProblems(c)).every((p) => p === undefined);
}

export function authOf(c: CredentialForm): ToolServerAuthInput {
  if (c.type === 'bearer') return { type: 'bearer', value: c.value };
  if (c.type === 'header') return { type: 'header', headerName: c.headerName.trim(), value: c.value };
  if (c.type === 'oauth') {
    const scopes = scopeList(c.scopes);
    const clientId = c.clientId.trim();
    return {
      type: 'oauth',
      ...(scopes.length > 0 ? { scopes } : {}),
      ...(clientId ? { clientId } : {}),
      ...(clientId && c.value ? { clientSecret: c.value } : {}),
    };
  }
  return { type: 'none' };
}

/** The fields; `prefix` keeps their ids apart when a page has more than one such form. */
export function CredentialFields(props: {
  prefix: string;
  form: CredentialForm;
  onChange: (form: CredentialForm) => void;
  shown: boolean;
}) {
  const { form, prefix } = props;
  const errors = props.shown ? credentialProblems(form) : {};
  const set = (patch: Partial<CredentialForm>) => props.onChange({ ...form, ...patch });
  return (
    <div class="grid three">
      <SelectField
        label="Credential"
        name={`${prefix}-authType`}
        value={form.type}
        options={AUTH_TYPES}
        onChange={(v) => set({ type: AUTH_TYPES.find((t) => t === v) ?? 'none' })}
        hint="bearer: Authorization: Bearer <value>; header: a header of your own; oauth: you authorize the gateway at the server's own sign-in page"
      />
      {form.type === 'header' ? (
        <Field
          label="Header name"
          name={`${prefix}-headerName`}
          value={form.headerName}
          onInput={(headerName) => set({ headerName })}
          error={errors.headerName}
        />
      ) : null}
      {form.type === 'bearer' || form.type === 'header' ? (
        <SecretField
          label={form.type === 'header' ? 'Header value' : 'Token'}
          name={`${prefix}-credentialValue`}
          value={form.value}
          onInput={(value) => set({ value })}
          hint="Stored encrypted, never shown again."
          error={errors.value}
        />
      ) : null}
      {form.type === 'oauth' ? <OAuthFields prefix={prefix} form={form} set={set} errors={errors} /> : null}
    </div>
  );
}

function OAuthFields(props: { prefix: string; form: CredentialForm; set: (patch: Partial<CredentialForm>) => void; errors: Problems }) {
  const { prefix, form, set, errors } = props;
  return (
    <>
      <Field
        label="Scopes"
        name={`${prefix}-scopes`}
        value={form.scopes}
        onInput={(scopes) => set({ scopes })}
        placeholder="optional"
        hint="Separated by spaces. Empty: what the server asks for."
        error={errors.scopes}
      />
      <Field
        label="Client ID"
        name={`${prefix}-clientId`}
        value={form.clientId}
        onInput={(clientId) => set({ clientId })}
        placeholder="optional"
        hint="Only for a client you registered at the server. Empty: the gateway identifies itself."
      />
      <SecretField
        label="Client secret"
        name={`${prefix}-clientSecret`}
        value={form.value}
        onInput={(value) => set({ value })}
        hint="Optional, with the client ID. Stored encrypted, never shown again."
        error={errors.value}
      />
    </>
  );
}
