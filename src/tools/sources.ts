/**
 * Every tool source, in the order the catalog offers their tools. A new built-in is one file (a
 * `ToolSource`) and one line here; no surface and no catalog changes.
 */
import { askSource } from './ask';
import { memorySource } from './memory';
import type { ToolSource } from './source';
import { toolServersSource } from './tool-servers';

export const TOOL_SOURCES: readonly ToolSource[] = [toolServersSource, memorySource, askSource];
