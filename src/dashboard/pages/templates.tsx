/**
 * Prompt templates: open one by key, edit its text and description, save it. The
 * template's `{{variables}}` are highlighted in a preview beside the text, and listed: a reply
 * must give each of them (`variables`), or it is 400 `prompt_variable_missing`.
 */
import { useEffect, useState } from 'hono/jsx/dom';
import { type AgentClient, GatewayError, type PromptTemplate } from '../../client';
import { TextAreaField } from '../ui/controls';
import { Field } from '../ui/field';
import { when } from '../ui/format';
import { useAction } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import { TemplateList } from '../ui/template-list';
import { templateSegments, templateVariables } from '../ui/template-segments';
import type { PageProps } from './page';
import '../settings.css';

const KEY_RULE = /^[A-Za-z0-9._\-:@]{1,128}$/;
/** The template a reply renders when it names none. */
const DEFAULT_KEY = 'default';

/**
 * The stored template of `key`, or null when there is none. The list is asked first (keys in byte
 * order, read until past `key`): a key not saved yet is an empty answer, not a 404 in the console.
 */
export async function storedTemplate(agent: AgentClient, key: string): Promise<PromptTemplate | null> {
  let listed = false;
  for await (const t of agent.promptTemplates({ limit: 100 })) {
    if (t.key === key) listed = true;
    if (t.key >= key) break;
  }
  if (!listed) return null;
  try {
    return await agent.getPromptTemplate(key);
  } catch (err) {
    // Removed since the list was read.
    if (err instanceof GatewayError && err.code === 'prompt_template_not_found') return null;
    throw err;
  }
}

export function TemplatesPage({ agent, params, navigate }: PageProps) {
  const [key, setKey] = useState(params[0] ?? DEFAULT_KEY);
  const [opened, setOpened] = useState<{ key: string; stored: PromptTemplate | null } | undefined>(undefined);
  const [template, setTemplate] = useState('');
  const [description, setDescription] = useState('');
  const [shown, setShown] = useState(false);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const open = useAction();
  const save = useAction();
  const keyError = KEY_RULE.test(key) ? undefined : 'A key is 1 to 128 characters of A-Z a-z 0-9 . _ - : @';

  const load = async (wanted: string, remember = true) => {
    setShown(true);
    setStatus(undefined);
    save.clear();
    if (!KEY_RULE.test(wanted)) return;
    // Another template's text is not left in the editor while this one loads (nor typed into).
    if (opened?.key !== wanted) setOpened(undefined);
    await open.run(async () => {
      const stored = await storedTemplate(agent, wanted);
      setOpened({ key: wanted, stored });
      setTemplate(stored?.template ?? '');
      setDescription(stored?.description ?? '');
      if (remember && params[0] !== wanted) navigate('templates', wanted);
    });
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!opened) return;
    setStatus(undefined);
    let answer: PromptTemplate | undefined;
    const ok = await save.run(async () => {
      answer = await agent.savePromptTemplate(opened.key, { template, description: description.trim() === '' ? null : description });
    });
    if (ok && answer) {
      setOpened({ key: opened.key, stored: answer });
      setStatus(`Saved ${opened.key} ${when(answer.updatedAt)}.`);
      setVersion((v) => v + 1);
    }
  };

  // The template the location names (or the default one) opens with the page.
  useEffect(() => {
    void load(key, false);
  }, [agent]);

  const segments = templateSegments(template);
  const variables = templateVariables(template);
  const openKey = (k: string) => {
    setKey(k);
    void load(k);
  };

  return (
    <>
      <section class="card" aria-labelledby="templates-title">
        <h1 id="templates-title">Prompt templates</h1>
        <TemplateList agent={agent} version={version} onOpen={openKey} />
        <form
          class="row"
          onSubmit={(e: Event) => {
            e.preventDefault();
            void load(key);
          }}
          novalidate
        >
          <div class="grow">
            <Field
              label="Template key"
              name="templateKey"
              value={key}
              onInput={setKey}
              hint={`A reply without a key uses "${DEFAULT_KEY}".`}
              error={shown ? keyError : undefined}
            />
          </div>
          <button type="submit" disabled={open.busy}>
            {open.busy ? 'Opening…' : 'Open'}
          </button>
        </form>
        <ErrorNotice problem={open.problem} />
      </section>
      {opened ? (
        <section class="card" aria-labelledby="template-edit-title">
          <h2 id="template-edit-title">
            <code>{opened.key}</code>{' '}
            <span class="muted">{opened.stored ? `saved ${when(opened.stored.updatedAt)}` : 'new: not saved yet'}</span>
          </h2>
          <form onSubmit={(e: Event) => void submit(e)} novalidate>
            <Field label="Description" name="templateDescription" value={description} onInput={setDescription} placeholder="optional" />
            <div class="template-editor">
              <TextAreaField
                label="Template"
                name="template"
                value={template}
                onInput={setTemplate}
                rows={12}
                describedBy="template-variables"
              />
              <div class="field">
                <span class="label" id="template-preview-label">
                  Preview
                </span>
                {/* Scrolls when long: a named region the keyboard reaches. */}
                <section class="template-preview" aria-labelledby="template-preview-label" tabindex={0}>
                  <pre>
                    {segments.map((s) => (s.variable === undefined ? s.text : <mark title={`variable ${s.variable}`}>{s.text}</mark>))}
                  </pre>
                </section>
              </div>
            </div>
            <p class="muted" id="template-variables">
              {variables.length === 0 ? (
                'No variables.'
              ) : (
                <>
                  Variables a reply must give:{' '}
                  {variables.map((v, i) => (
                    <>
                      {i > 0 ? ', ' : ''}
                      <code class="code">{v}</code>
                    </>
                  ))}
                </>
              )}
            </p>
            <button type="submit" class="primary" disabled={save.busy || template === ''}>
              {save.busy ? 'Saving…' : 'Save template'}
            </button>
          </form>
          <Status text={status} />
          <ErrorNotice problem={save.problem} />
        </section>
      ) : null}
    </>
  );
}
