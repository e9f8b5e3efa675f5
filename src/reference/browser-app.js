// The /docs page's browser code, handed to the worker (src/reference/script.ts serializes it).
// A .js file with a .d.ts twin: the worker's type check (no DOM types) sees only
// browser-app.d.ts, while src/reference/browser itself is checked by tsconfig.docs.json (DOM types).
export { entry, functions } from './browser/index';
