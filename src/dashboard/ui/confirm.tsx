import { useEffect, useRef, useState } from 'hono/jsx/dom';
import { focusSectionHeading } from './focus';

/**
 * A destructive action behind a confirm step: the first press asks (in words, naming what goes),
 * the second does it; Cancel (or Escape) takes the question back. Focus moves to the question's
 * confirm button, back to the action when the question is taken back, and to the heading of the
 * section the action is in once confirmed.
 */
export function ConfirmButton(props: { label: string; question: string; confirmLabel: string; busy?: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const actionRef = useRef<HTMLButtonElement>(null);
  const [asked, setAsked] = useState(false);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (asked) actionRef.current?.focus();
  }, [asking]);
  const ask = (value: boolean) => {
    setAsked(true);
    setAsking(value);
  };
  const onEscape = (e: KeyboardEvent) => {
    if (e.key === 'Escape') ask(false);
  };
  if (!asking) {
    return (
      <button type="button" class="danger" ref={actionRef} disabled={props.busy} onClick={() => ask(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm">
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        onKeyDown={onEscape}
        disabled={props.busy}
        onClick={() => {
          // The row may go (a revoked key, a removed server): focus goes to its list's heading.
          setAsked(false);
          focusSectionHeading(confirmRef.current);
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" onKeyDown={onEscape} onClick={() => ask(false)}>
        Cancel
      </button>
    </span>
  );
}
