/** What a conformance client scenario's step is: a function of the driver's context (./client.ts gives it). */

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
