/**
 * The owner's dashboard at /app (docs/dashboard.md; docs/architecture.md tells where a page goes). Entry: renders the shell
 * (./app.tsx: login, agent picker, header, nav) with the page list below.
 *
 * THE PAGE SEAM. A page is one file `src/dashboard/pages/<page>.tsx` exporting a component that
 * takes `PageProps` (./pages/page.ts: `agent`, the picked agent's typed `AgentClient`;
 * `walletAddress`; `params`, the decoded hash segments after `#/<path>/`; `navigate(path,
 * ...params)`), and one line in `PAGES` below: `{ path, title, Page }`. The nav lists the entries
 * in order; `#/<path>` opens one; the first is the default. A page calls the gateway only through
 * `agent` (the typed client: no request shapes of its own), shows failures with `ErrorNotice` and
 * `problemOf` (./ui), keeps its form values after a failed save, and needs nothing else from the
 * shell: a 401 anywhere sends the tab back to login on its own (./gateway.ts).
 */
import { render } from 'hono/jsx/dom';
import { App } from './app';
import type { PageEntry } from './pages/page';
import { ChatPage } from './pages/chat';
import { AuditPage } from './pages/audit';
import { KeysPage } from './pages/keys';
import { LlmSettingsPage } from './pages/llm-settings';
import { ProfilePage } from './pages/profile';
import { TemplatesPage } from './pages/templates';
import { ToolServersPage } from './pages/tool-servers';
import { UsagePage } from './pages/usage';
import { MemoryPage } from './pages/memory';
import './styles.css';

const PAGES: PageEntry[] = [
  { path: 'memory', title: 'Memory', Page: MemoryPage },
  { path: 'chat', title: 'Chat', Page: ChatPage },
  // Settings pages (LLM settings, templates, tool servers, keys, profile, usage, audit): one line each.
  { path: 'llm', title: 'LLM settings', Page: LlmSettingsPage },
  { path: 'templates', title: 'Templates', Page: TemplatesPage },
  { path: 'tools', title: 'Tool servers', Page: ToolServersPage },
  { path: 'keys', title: 'Keys', Page: KeysPage },
  { path: 'profile', title: 'Profile', Page: ProfilePage },
  { path: 'usage', title: 'Usage', Page: UsagePage },
  { path: 'audit', title: 'Audit', Page: AuditPage },
];

const root = document.getElementById('root');
if (root) {
  root.textContent = '';
  render(<App pages={PAGES} />, root);
}
