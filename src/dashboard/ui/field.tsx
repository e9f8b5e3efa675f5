import type { Child } from 'hono/jsx';

/** A labelled input; the value stays what the user typed whatever the outcome of a save. */
export function Field(props: {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  placeholder?: string;
  hint?: Child;
  error?: string | undefined;
  autocomplete?: string;
  inputmode?: 'text' | 'numeric' | 'decimal';
  /** The id of a `<datalist>` of suggested values. */
  list?: string | undefined;
}) {
  const id = `field-${props.name}`;
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        value={props.value}
        placeholder={props.placeholder}
        autocomplete={props.autocomplete ?? 'off'}
        inputmode={props.inputmode}
        list={props.list}
        spellcheck={false}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described || undefined}
        onInput={(e: Event) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.hint ? (
        <small id={`${id}-hint`} class="muted">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={`${id}-error`} class="field-error">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}
