/**
 * The conformance suite's client scenarios the gateway's tool client takes part in, pinned: each
 * with the step the driver (./client.ts) runs through the gateway's public API. An `auth/*`
 * scenario is one more entry: its step registers the connection its own way (through the
 * gateway's OAuth routes for tool servers) and then lists and calls as the others do.
 */

/** What a scenario's step is given: the scenario's server, and the gateway as a logged-in owner. */
export interface DriverContext {
  serverUrl: string;
  /** MCP_CONFORMANCE_CONTEXT, parsed (`{}` when the scenario gives none). */
  context: Record<string, unknown>;
  /** Registers `url` (default: the scenario's server) without a credential; returns the connection's id. */
  register(url?: string): Promise<string>;
  /** The connection's tools, listed live (tools/list through the gateway). */
  listTools(id: string): Promise<Array<{ name: string }>>;
  /** Calls a tool through the gateway; returns the result (the gateway's 200 body). */
  callTool(id: string, name: string, args: Record<string, unknown>): Promise<{ content?: unknown[]; isError?: boolean }>;
  /**
   * Any call of the gateway's public API under the agent (`rest` after `/agent/{c}/{t}`), as its
   * owner: for steps that register a connection their own way (an `auth/*` scenario's OAuth).
   * Connections it creates are removed at the end only when given to `track`.
   */
  api(method: string, rest: string, json?: unknown): Promise<{ status: number; body: Record<string, unknown>; text: string }>;
  /** Removes the connection `id` when the run ends. */
  track(id: string): void;
  log(line: string): void;
}

export type Step = (ctx: DriverContext) => Promise<void>;

export interface Scenario {
  step: Step;
  /** What the scenario checks of our client, for the summary. */
  checks: string;
}

function expectText(result: { content?: unknown[] }, text: string): void {
  const first = result.content?.[0] as { type?: unknown; text?: unknown } | undefined;
  if (first?.type !== 'text' || first.text !== text)
    throw new Error(`expected the text ${JSON.stringify(text)}, got ${JSON.stringify(result)}`);
}

/** Registers the scenario's server, lists its tools, and calls `name` with `args`, expecting `text`. */
const registerAndCall =
  (name: string, args: Record<string, unknown>, text: string): Step =>
  async (ctx) => {
    const id = await ctx.register();
    const tools = await ctx.listTools(id);
    if (!tools.some((t) => t.name === name))
      throw new Error(`the server lists no ${name} (it lists ${tools.map((t) => t.name).join(', ')})`);
    expectText(await ctx.callTool(id, name, args), text);
  };

/** The pinned scenarios, in the order the suite runs them. */
export const SCENARIOS: Record<string, Scenario> = {
  initialize: {
    // Registration opens with initialize: our offered revision and clientInfo are what is checked.
    step: async (ctx) => {
      const id = await ctx.register();
      await ctx.listTools(id);
    },
    checks: 'initialize carries a revision it speaks (2025-11-25) and clientInfo name and version',
  },
  tools_call: {
    step: registerAndCall('add_numbers', { a: 5, b: 3 }, 'The sum of 5 and 3 is 8'),
    checks: 'add_numbers is called with its arguments and its result read',
  },
  'sse-retry': {
    // The server closes the call's SSE stream after a priming event: the client resumes with a GET.
    step: registerAndCall('test_reconnection', {}, 'Reconnection test completed successfully'),
    checks: "a closed SSE stream is resumed with GET and Last-Event-ID after the server's retry wait",
  },
};
