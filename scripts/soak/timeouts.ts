/** The reply's idle timeout in the soak's worker (LLM_TIMEOUT_MS), and how long a stalled model waits. */
export const LLM_TIMEOUT_MS = 2_000;
export const MODEL_STALL_MS = 4_000;
