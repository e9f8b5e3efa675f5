/** The local stack's stand-in model server as LLM settings take it (`stack.json`'s `llm`). */
import type { StackLlm } from './stack-processes';
import type { StandinLlm } from './standin-llm';

/** The model name the stand-in is saved with; it answers to any name. */
export const STANDIN_MODEL = 'stand-in';

export function standinSettings(standin: Pick<StandinLlm, 'baseUrl'>): StackLlm {
  return { provider: 'openai-compatible', baseUrl: standin.baseUrl, model: STANDIN_MODEL, standIn: true };
}
