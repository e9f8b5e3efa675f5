/**
 * Form controls beside ./field.tsx's text field: a select, a checkbox, a multi-line text and a
 * write-only secret. Each is labelled; values stay what the user set whatever a save answers.
 */
import type { Child } from 'hono/jsx';

const targetValue = (e: Event) => (e.target as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement).value;

export function SelectField(props: {
  label: string;
  name: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
  hint?: Child;
}) {
  const id = `field-${props.name}`;
  const options = props.options.includes(props.value) || props.value === '' ? props.options : [...props.options, props.value];
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} onChange={(e: Event) => props.onChange(targetValue(e))}>
        {options.map((o) => (
          <option value={o} selected={o === props.value}>
            {o}
          </option>
        ))}
      </select>
      {props.hint ? <small class="muted">{props.hint}</small> : null}
    </div>
  );
}

export function CheckField(props: { label: string; name: string; checked: boolean; onChange: (checked: boolean) => void; hint?: Child }) {
  const id = `field-${props.name}`;
  return (
    <div class="field check">
      <input
        id={id}
        type="checkbox"
        name={props.name}
        checked={props.checked}
        onChange={(e: Event) => props.onChange((e.target as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
      {props.hint ? <small class="muted">{props.hint}</small> : null}
    </div>
  );
}

export function TextAreaField(props: {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  rows?: number;
  hint?: Child;
  describedBy?: string;
}) {
  const id = `field-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 8}
        spellcheck={false}
        value={props.value}
        aria-describedby={props.describedBy}
        onInput={(e: Event) => props.onInput(targetValue(e))}
      />
      {props.hint ? <small class="muted">{props.hint}</small> : null}
    </div>
  );
}

/**
 * A secret the page sends and never shows again (an API key, a header value): a password input the
 * browser neither fills nor offers to save.
 */
export function SecretField(props: {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  hint?: Child;
  error?: string | undefined;
}) {
  const id = `field-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type="password"
        value={props.value}
        autocomplete="new-password"
        spellcheck={false}
        aria-invalid={props.error ? 'true' : undefined}
        onInput={(e: Event) => props.onInput(targetValue(e))}
      />
      {props.hint ? <small class="muted">{props.hint}</small> : null}
      {props.error ? <small class="field-error">{props.error}</small> : null}
    </div>
  );
}
