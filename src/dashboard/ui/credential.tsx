/**
 * A tool server's credential as a form takes it: none, a bearer token, or a header of the server's
 * own (name and value). The value is write-only: sent once, stored in the vault, never shown.
 */
import type { ToolServerAuthInput } from '../../client';
import { SecretField, SelectField } from './controls';
import { Field } from './field';

const AUTH_TYPES = ['none', 'bearer', 'header'] as const satisfies readonly ToolServerAuthInput['type'][];
type AuthType = (typeof AUTH_TYPES)[number];

export interface CredentialForm {
  type: AuthType;
  headerName: string;
  value: string;
}

export const NO_CREDENTIAL: CredentialForm = { type: 'none', headerName: 'x-api-key', value: '' };

/** What is missing, in words (undefined: nothing). */
export function credentialProblems(c: CredentialForm): { headerName?: string | undefined; value?: string | undefined } {
  return {
    headerName: c.type === 'header' && c.headerName.trim() === '' ? 'Enter the header name.' : undefined,
    value: c.type !== 'none' && c.value === '' ? 'Enter the credential value.' : undefined,
  };
}

export function authOf(c: CredentialForm): ToolServerAuthInput {
  if (c.type === 'bearer') return { type: 'bearer', value: c.value };
  if (c.type === 'header') return { type: 'header', headerName: c.headerName.trim(), value: c.value };
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
        hint="bearer: Authorization: Bearer <value>; header: a header of your own"
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
      {form.type !== 'none' ? (
        <SecretField
          label={form.type === 'header' ? 'Header value' : 'Token'}
          name={`${prefix}-credentialValue`}
          value={form.value}
          onInput={(value) => set({ value })}
          hint="Stored encrypted, never shown again."
          error={errors.value}
        />
      ) : null}
    </div>
  );
}
