/**
 * The page's credential fields, one per http bearer scheme of the document (`bearer`: the wallet's
 * JWT, `agentKey`: an agent key, ...), and its colour theme toggle. A credential lives in its field
 * and in sessionStorage (this tab only); it is sent only by Try it, only in the Authorization
 * header, and never logged or shown. Serialized into the page like dom.ts.
 */
import { byId, h, isObj, type Obj } from './dom';

/** The document's http bearer schemes as [name, description], `bearer` first. */
export function bearerSchemes(spec: Obj): [string, string][] {
  const components = isObj(spec.components) && isObj(spec.components.securitySchemes) ? spec.components.securitySchemes : {};
  const found: [string, string][] = [];
  for (const [name, raw] of Object.entries(components)) {
    if (isObj(raw) && raw.type === 'http' && String(raw.scheme).toLowerCase() === 'bearer')
      found.push([name, typeof raw.description === 'string' ? raw.description : '']);
  }
  return found.sort((a, b) => Number(b[0] === 'bearer') - Number(a[0] === 'bearer'));
}

/** Where a scheme's credential is kept in sessionStorage (`bearer` keeps its older key). */
export function credentialKey(scheme: string): string {
  return scheme === 'bearer' ? 'agent-gateway.token' : `agent-gateway.cred.${scheme}`;
}

export function readCredential(scheme: string): string {
  try {
    return sessionStorage.getItem(credentialKey(scheme)) ?? '';
  } catch {
    return '';
  }
}

/** Keeps a field and sessionStorage in step; its Clear button empties both. */
export function bindCredential(scheme: string, input: HTMLInputElement, clear: HTMLElement): void {
  input.value = readCredential(scheme);
  input.addEventListener('input', () => {
    try {
      if (input.value) sessionStorage.setItem(credentialKey(scheme), input.value.trim());
      else sessionStorage.removeItem(credentialKey(scheme));
    } catch {
      /* storage unavailable: the credential stays in the field only */
    }
  });
  clear.addEventListener('click', () => {
    input.value = '';
    input.dispatchEvent(new Event('input'));
  });
}

/** `agentKey` → `Agent key`. */
export function schemeLabel(scheme: string): string {
  const words = scheme.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The `bearer` field is in the page from the start; one more field for each other bearer scheme. */
export function initCredentials(spec: Obj): void {
  const bearer = document.getElementById('token') as HTMLInputElement | null;
  const bearerClear = document.getElementById('token-clear');
  if (bearer && bearerClear) bindCredential('bearer', bearer, bearerClear);
  const box = document.getElementById('creds');
  if (!box) return;
  const note = box.querySelector('.note');
  for (const [name, description] of bearerSchemes(spec)) {
    if (name === 'bearer') continue;
    const id = `cred-${name}`;
    const input = h('input', {
      id,
      class: 'mono',
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: description.split(/(?<=\.)\s/)[0] || `a credential for ${name}`,
    }) as HTMLInputElement;
    const clear = h('button', { type: 'button', class: 'secondary', id: `${id}-clear` }, 'Clear');
    const row = h(
      'div',
      { class: 'token', 'data-scheme': name },
      h('label', { for: id }, `${schemeLabel(name)} `, h('code', {}, name)),
      input,
      clear,
    );
    box.insertBefore(row, note);
    bindCredential(name, input, clear);
  }
}

/** The theme button cycles auto (prefers-color-scheme) → dark → light, remembered in localStorage. */
export function initTheme(): void {
  const button = byId('theme');
  const root = document.documentElement;
  let theme = 'auto';
  try {
    theme = localStorage.getItem('agent-gateway.theme') ?? 'auto';
  } catch {
    /* storage unavailable: auto */
  }
  const apply = () => {
    if (theme === 'dark' || theme === 'light') root.setAttribute('data-theme', theme);
    else root.removeAttribute('data-theme');
    button.textContent = `Theme: ${theme}`;
    // The name starts with the visible text (WCAG 2.5.3: a speech user says what they see).
    button.setAttribute('aria-label', theme === 'auto' ? 'Theme: auto, follows the system' : `Theme: ${theme}`);
  };
  apply();
  button.addEventListener('click', () => {
    theme = theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto';
    try {
      localStorage.setItem('agent-gateway.theme', theme);
    } catch {
      /* storage unavailable: this page view only */
    }
    apply();
  });
}
