import { useRef, useState } from 'hono/jsx/dom';

/**
 * A secret the gateway shows once (a new agent key): in a read-only field with a Copy button
 * (navigator.clipboard; where the browser refuses, the field's text is selected for Ctrl+C), and
 * Done, after which the page forgets it.
 */
export function SecretOnce(props: { label: string; secret: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const selectAll = () => {
    input.current?.focus();
    input.current?.select();
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      selectAll();
      setCopied('The browser did not let the page copy: the key is selected, press Ctrl+C (⌘C) to copy it.');
    }
  };
  return (
    <section class="secret-once" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong>: shown this once. Copy it now; the gateway keeps only its hash.
      </p>
      <div class="row">
        <input ref={input} class="mono secret-input" readonly value={props.secret} aria-label={props.label} onFocus={selectAll} />
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
      <p class="notice status" role="status" aria-live="polite">
        {copied ?? ''}
      </p>
    </section>
  );
}
