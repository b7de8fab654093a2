#!/usr/bin/env node
// Runs the whole test suite. PGlite always; PostgreSQL and Redis on 127.0.0.1 are used when
// TEST_DATABASE_URL / REDIS_URL are set, or found running on their standard ports.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';

function reachable(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const env = { ...process.env };
if (!env.TEST_DATABASE_URL && (await reachable(5432))) {
  env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
}
if (!env.REDIS_URL && (await reachable(6379))) env.REDIS_URL = 'redis://127.0.0.1:6379';
console.log(
  `Test backends: PGlite${env.TEST_DATABASE_URL ? ' + PostgreSQL' : ' only (no PostgreSQL found)'}; ` +
    `Redis ${env.REDIS_URL ? 'on' : 'off (Redis tests skipped)'}`,
);
const child = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit', env });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
