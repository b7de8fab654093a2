#!/usr/bin/env node
// The website widget's JavaScript, gzipped (-9), against its budgets: the loader (v1.js, on every
// page of a tenant's website) and everything (loader and panel chunk). Fails (exit 1) past a
// budget. Run after `npm run widget:build`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const WIDGET_BUDGET_KB = { loader: 15, total: 60 };

const dist = fileURLToPath(new URL('../widget/dist/', import.meta.url));
const manifestPath = join(dist, 'manifest.json');
if (!existsSync(manifestPath)) {
  console.error('FAIL: widget/dist/manifest.json is missing: run npm run widget:build first');
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const kb = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length / 1024;
const loader = kb(manifest.loader);
const panel = kb(manifest.panel);
const total = loader + panel;
console.log('Website widget (gzip -9, KB):');
console.log(
  `  ${loader.toFixed(1).padStart(7)}  loader ${manifest.loader} (budget ${WIDGET_BUDGET_KB.loader})`,
);
console.log(`  ${panel.toFixed(1).padStart(7)}  panel ${manifest.panel}`);
console.log(`  ${total.toFixed(1).padStart(7)}  all (budget ${WIDGET_BUDGET_KB.total})`);
const failures = [];
if (loader > WIDGET_BUDGET_KB.loader)
  failures.push(`widget loader ${loader.toFixed(1)} KB > ${WIDGET_BUDGET_KB.loader} KB`);
if (total > WIDGET_BUDGET_KB.total)
  failures.push(`widget total ${total.toFixed(1)} KB > ${WIDGET_BUDGET_KB.total} KB`);
if (failures.length > 0) {
  for (const failure of failures) console.error(`FAIL: ${failure}`);
  process.exit(1);
}
