/**
 * A tool server's credential as a form takes it: none, a bearer token, a header of the server's
 * own (name and value), or OAuth (the owner authorizes the gateway at the server's authorization
 * server; optional scopes and a client registered there beforehand). A value or client secret is
 * write-only: sent once, stored in the vault, never shown.
 */
import { SecretField, SelectField } from './controls';
import { AUTH_TYPES, type CredentialForm, credentialProblems, type Problems } from './credential-rules';
import { Field } from './field';

export { authOf, type CredentialForm, credentialProblems, credentialReady, NO_CREDENTIAL } from './credential-rules';

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
