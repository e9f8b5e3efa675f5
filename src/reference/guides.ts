/**
 * The guides under docs/ that the reference page names. The deployment serves none of the
 * repository's files and the package declares no repository URL, so the page names them as
 * files: they are in the repository's docs/ folder and in the npm package's (a unit test keeps
 * this list equal to docs/*.md).
 */
export const GUIDES: readonly { file: string; about: string }[] = [
  { file: 'api.md', about: 'routes, errors' },
  { file: 'memory.md', about: 'contexts, hydration, search' },
  { file: 'replies.md', about: 'replies, models, chat' },
  { file: 'tools.md', about: 'tool servers, the agent as an MCP server' },
  { file: 'keys-and-automation.md', about: 'agent keys, logins, OAuth' },
  { file: 'paid-calls.md', about: 'paid replies with x402' },
  { file: 'cli.md', about: 'every CLI command' },
  { file: 'dashboard.md', about: 'the dashboard' },
  { file: 'security.md', about: 'gates, secrets, audit' },
  { file: 'configuration.md', about: 'configuration, storage, deployment' },
  { file: 'development.md', about: 'the local stack, tests, the package' },
  { file: 'architecture.md', about: 'how the code is laid out' },
];

/** The page's line naming the guides, as HTML (fixed text: nothing from a request). */
export function guidesNote(): string {
  const items = GUIDES.map((g) => `<code>${g.file}</code> (${g.about})`).join(', ');
  return `<p class="note" id="guides">Guides, in <code>docs/</code> of the repository and of the npm package (start with its README.md): ${items}. The owner's dashboard is at <a href="/app">/app</a>.</p>`;
}
