/**
 * Writes the service's OpenAPI document without starting a server or opening a data directory:
 * `tsx scripts/dump-openapi.ts [file]` (standard output without a file). The document is the
 * one `/openapi.json` serves, built from the route schemas.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { openPglite } from '../src/db/pglite.js';

const { db } = await openPglite();
const ctx = await createContext(testConfig({ LOG_LEVEL: 'silent' }), { db });
const app = await buildApp(ctx);
await app.ready();
const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
await ctx.close();

const target = process.argv[2];
if (target) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, document);
} else process.stdout.write(document);
