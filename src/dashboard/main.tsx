/**
 * The owner's dashboard at /app (docs/dashboard.md; docs/architecture.md tells where a page goes). Entry: renders the shell
 * (./app.tsx: login, agent picker, header, nav) with the page list below.
 *
 * THE PAGE SEAM. A page is one file `src/dashboard/pages/<page>.tsx` exporting a component that
 * takes `PageProps` (./pages/page.ts: `agent`, the picked agent's typed `AgentClient`;
 * `walletAddress`; `params`, the decoded hash segments after `#/<path>/`; `navigate(path,
 * ...params)`), and one line in `PAGES` below: `{ path, title, Page, need? }`. The nav lists the entries
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
  // `need`: what a delegate or renter needs to open it (the owner's access choice); the default is `use`.
  { path: 'llm', title: 'LLM settings', Page: LlmSettingsPage, need: 'admin' },
  { path: 'templates', title: 'Templates', Page: TemplatesPage, need: 'admin' },
  { path: 'tools', title: 'Tool servers', Page: ToolServersPage, need: 'admin' },
  { path: 'keys', title: 'Keys', Page: KeysPage, need: 'admin' },
  { path: 'profile', title: 'Profile', Page: ProfilePage, need: 'admin' },
  { path: 'usage', title: 'Usage', Page: UsagePage, need: 'owner' },
  { path: 'audit', title: 'Audit', Page: AuditPage, need: 'owner' },
];

const root = document.getElementById('root');
if (root) {
  root.textContent = '';
  render(<App pages={PAGES} />, root);
}
