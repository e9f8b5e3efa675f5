/** What the reply service takes and gives (reply.service.ts): its deps, a request, and the answer. */
import type { AuditActor } from '../audit/entry';
import type { Idempotency, MessagesDeps, Role, StoredMessage } from '../contexts/messages.service';
import type { Database } from '../storage/db';
import type { McpDeps } from '../tool-servers/connections.service';
import type { ToolRights } from '../tools/rights';
import type { Credential } from '../usage/record.service';
import type { KeyRing } from '../vault/crypto';
import type { FinishReason, LoopEvents } from './loop';
import type { ReplyStep } from './tools';
import type { RuntimeTracing } from './trace';

export interface ReplyDeps {
  store: MessagesDeps;
  db: Database;
  ring: () => Promise<KeyRing>;
  mcp: McpDeps;
  /** The deployment's Workers AI binding, if declared. */
  ai?: Ai;
  limits: { maxTokensPerRequest: number; maxIterations: number; llmTimeoutMs: number; mcpTimeoutMs: number };
  /**
   * Work after the response (`waitUntil`): the summary of what the reply left out, and a lease
   * release the database refused. Absent: no summary is written; the release retries before answering.
   */
  later?: (work: Promise<unknown>) => void;
  /**
   * The runtime's tracing (`ctx.tracing`) for the reply's spans; `messageText` opts message text
   * in (the operator's `TRACE_MESSAGE_TEXT`: agent memory stays out of traces unless asked for).
   */
  tracing?: { api: RuntimeTracing | undefined; messageText: boolean };
}

export interface ReplyInput {
  contextKey: string;
  message?: string;
  role: Extract<Role, 'user' | 'system'>;
  /** Absent: the `default` template, which may not exist. */
  promptTemplateKey?: string;
  variables: Record<string, string>;
  /** False: no tools at all, memory tools included. */
  tools: boolean;
  /** False: no memory tools (`memory_search`, `memory_read`). */
  memoryTools: boolean;
  /** The caller's rights to the agent's tools (src/tools/rights.ts), asked after the owner check: memory tools only with `memory:read`. */
  rights(): ToolRights;
  /**
   * The caller's tool allowlist (an agent key's `tools`, entries as in src/tools/tool-entry.ts),
   * on every route that runs a reply; null: every tool. Asked after the owner check (a key is known
   * only then), so every route must say it.
   */
  allowedTools(): readonly string[] | null;
  /** Who the tool calls are audited for: the owner's wallet or the agent key (asked after the owner check). */
  actor(): AuditActor;
  /** Who asks (asked after the owner check): the credential usage is counted for, and its own daily limit (null: none). */
  caller(): { credential: Credential; tokensPerDay: number | null };
  idempotency?: Idempotency;
}

export interface ReplyAnswer {
  reply: StoredMessage | null;
  steps: ReplyStep[];
  usage: { inputTokens: number; outputTokens: number };
  finishReason: FinishReason;
}

/** A reply ready to run: checked, leased, its message stored. Run it once, then it is released. */
export interface PreparedReply {
  /**
   * Runs the reply. `gone` (the client's hang-up) ends it at once with the signal's reason: the
   * lease is released and nothing more is stored (its message stays; a retry runs it again).
   */
  run(events: LoopEvents, gone?: AbortSignal): Promise<ReplyAnswer>;
  /** Drops the lease without running (the caller gave up). */
  release(): Promise<void>;
  /** The model the agent's settings name (what an OpenAI-shaped answer reports). */
  model: string;
}

export type Prepared = { remembered: ReplyAnswer } | { prepared: PreparedReply };

/** The idempotency key of one part of a reply (`message`, `answer`, `reply`) under the request's. */
export const subKey = (idem: Idempotency | undefined, part: string): Idempotency | undefined =>
  idem && { key: `reply:${idem.key}:${part}`, requestHash: idem.requestHash };
