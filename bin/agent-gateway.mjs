#!/usr/bin/env node
// agent-gateway CLI: runs the TypeScript sources of this checkout through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
