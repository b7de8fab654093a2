#!/usr/bin/env node
// Loads the TypeScript CLI through tsx, so the package needs no build step.
import { register } from 'tsx/esm/api';

register();
process.env.PARLEY_CLI = '1';
await import('../src/main.ts');
