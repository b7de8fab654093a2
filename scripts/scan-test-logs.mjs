#!/usr/bin/env node
// Scans the logs the test suite wrote (test/helpers/log-sink.ts) for secrets: every secret the
// helpers listed (passwords, API keys, session tokens) and every token of a secret format (API
// keys svc_…, session tokens pst_…, webhook secrets whsec_…, provider keys sk-…, sk_test_…).
// Exits 1 and names the log lines (secrets masked) when one is found.
//
//   node scripts/scan-test-logs.mjs <log directory>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_PATTERNS = [
  /\bsvc_[A-Za-z0-9_-]{30,}/g,
  /\bpst_[A-Za-z0-9_-]{30,}/g,
  /\bwhsec_[A-Za-z0-9+/=]{16,}/g,
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g,
  /\b[sr]k_(?:test|live)_[A-Za-z0-9]{16,}/g,
];

/** The secrets found in the text: listed values and secret-shaped tokens. */
export function findSecrets(text, listed) {
  const found = new Set();
  for (const pattern of SECRET_PATTERNS) for (const match of text.matchAll(pattern)) found.add(match[0]);
  for (const secret of listed) if (text.includes(secret)) found.add(secret);
  return [...found];
}

function mask(secret) {
  return `${secret.slice(0, 6)}…(${secret.length} characters)`;
}

export function scanDirectory(dir) {
  const files = readdirSync(dir);
  const listed = new Set();
  for (const file of files.filter((f) => f.endsWith('.secrets'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) if (line) listed.add(line);
  }
  const findings = [];
  let lines = 0;
  for (const file of files.filter((f) => f.endsWith('.log'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      lines += 1;
      const secrets = findSecrets(line, listed);
      if (secrets.length > 0) {
        let shown = line;
        for (const secret of secrets) shown = shown.replaceAll(secret, mask(secret));
        findings.push(shown.slice(0, 600));
      }
    }
  }
  return { lines, listed: listed.size, findings };
}

if (process.argv[1] && process.argv[1].endsWith('scan-test-logs.mjs')) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: scan-test-logs.mjs <log directory>');
    process.exit(2);
  }
  const { lines, listed, findings } = scanDirectory(dir);
  if (findings.length > 0) {
    console.error(`Secret scan: ${findings.length} log line(s) of ${lines} hold a secret:`);
    for (const finding of findings.slice(0, 50)) console.error(`  ${finding}`);
    process.exit(1);
  }
  console.log(
    `Secret scan: ${lines} debug log lines, ${listed} listed secrets and all secret formats: none found.`,
  );
}
