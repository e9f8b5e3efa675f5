/**
 * The worker sees this folder only through ../browser-app.d.ts (no DOM types there); these types
 * fail to compile (src/reference/browser/tsconfig.json) when that declaration and ./index drift apart.
 */
import type * as Declared from '../browser-app.js';
import type { entry, functions } from './index';

type Assert<T extends true> = T;
export type EntryMatches = Assert<typeof entry extends typeof Declared.entry ? true : false>;
export type FunctionsMatch = Assert<typeof functions extends typeof Declared.functions ? true : false>;
