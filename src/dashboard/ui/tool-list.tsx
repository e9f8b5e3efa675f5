import type { McpTool, McpToolAnnotations, McpToolSummary } from '../../client';

/** MCP's behaviour hints, in the order a person weighs them, with what each means. */
const HINTS: { key: keyof McpToolAnnotations; meaning: string }[] = [
  { key: 'readOnlyHint', meaning: 'does not change its environment' },
  { key: 'destructiveHint', meaning: 'may destroy or overwrite data' },
  { key: 'idempotentHint', meaning: 'calling it again with the same arguments changes nothing more' },
  { key: 'openWorldHint', meaning: 'reaches outside systems' },
];

/** A tool server's tools: name, title, description and the annotations the server gave (hints as given, never guessed). */
export function ToolList({ tools }: { tools: readonly (McpTool | McpToolSummary)[] }) {
  if (tools.length === 0) return <p class="muted">The server lists no tools.</p>;
  return (
    <ul class="list tools">
      {tools.map((tool) => {
        const hints = HINTS.filter((h) => typeof tool.annotations?.[h.key] === 'boolean');
        return (
          <li>
            <code class="code">{tool.name}</code>
            {tool.title || tool.annotations?.title ? <strong> {tool.title ?? tool.annotations?.title}</strong> : null}
            {tool.description ? <p class="message">{tool.description}</p> : null}
            <p class="hints">
              {hints.length === 0 ? (
                <span class="muted">No annotations (readOnlyHint, destructiveHint, … not given).</span>
              ) : (
                hints.map((h) => (
                  <span class={`badge hint ${tool.annotations?.[h.key] ? 'on' : 'off'}`} title={h.meaning}>
                    {h.key}: {String(tool.annotations?.[h.key])}
                  </span>
                ))
              )}
            </p>
          </li>
        );
      })}
    </ul>
  );
}
