/**
 * The AI SDK side of a reply: the loop, the model and the tool set. The reply imports this module
 * with `import()` once it is about to call a model, so the `ai` package and the providers (a third
 * of the bundle) are evaluated on a worker's first reply, never at start-up and never for a request
 * that calls no model (issue 24; test/unit/lazy-providers.test.ts checks the module graph).
 */
export { afterLease } from './lease-gate';
export { runLoop } from './loop';
export { languageModel } from './model';
export { summarise } from './summarise';
export { toolSet } from './tools';
export { reserving } from './reserve-gate';
export { replyTrace } from './trace';
