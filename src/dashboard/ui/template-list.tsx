/**
 * THE SLOT for the agent's template list on the templates page. The `cli` helper (issue 26) adds
 * `GET …/prompt-templates` and `AgentClient.listPromptTemplates(query)` / `promptTemplates()`
 * (keys in byte order with description, length and last change; never the texts): the lead wires
 * them in here at merge: list the page's `templates` (key as a button calling `onOpen(key)`,
 * description, `updatedAt`), with "More" on `nextCursor`, reloading when `version` changes (a
 * template was saved). Until then it shows nothing, and the page opens templates by key.
 */
import type { AgentClient } from '../../client';

export function TemplateList(_props: { agent: AgentClient; version: number; onOpen: (key: string) => void }) {
  return null;
}
