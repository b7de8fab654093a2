import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { freePort, sleep, waitFor } from '../helpers/net.js';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PG_VERSION = '15';

export { freePort, sleep, waitFor };

/**
 * A PostgreSQL cluster of this suite's own (pg_createcluster on a free port, trust
 * authentication on 127.0.0.1). Stopping, freezing and dropping only ever touch this cluster:
 * every command names it, and the processes frozen are the ones of its own pid file.
 */
export class PgCluster {
  readonly name = `parley_faults_${randomBytes(4).toString('hex')}`;
  port = 0;

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/parley`;
  }

  async create(): Promise<this> {
    this.port = await freePort();
    // As root, pg_createcluster makes the cluster owned by the postgres user.
    await run('pg_createcluster', [PG_VERSION, this.name, '-p', String(this.port), '--', '--auth=trust']);
    await this.start();
    await run('psql', [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-U',
      'postgres',
      '-c',
      'CREATE DATABASE parley',
    ]);
    return this;
  }

  async start(): Promise<void> {
    await run('pg_ctlcluster', [PG_VERSION, this.name, 'start']);
  }

  async stop(): Promise<void> {
    await run('pg_ctlcluster', [PG_VERSION, this.name, 'stop', '-m', 'fast']);
  }

  /** The postmaster and its children (all of this cluster's server processes). */
  private async pids(): Promise<number[]> {
    const pidFile = `/var/run/postgresql/${PG_VERSION}-${this.name}.pid`;
    const postmaster = Number(readFileSync(pidFile, 'utf8').trim());
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]);
    return [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)];
  }

  /** SIGSTOP: the server accepts TCP connections but answers nothing. */
  async freeze(): Promise<void> {
    for (const pid of await this.pids()) process.kill(pid, 'SIGSTOP');
  }

  async thaw(): Promise<void> {
    for (const pid of await this.pids()) process.kill(pid, 'SIGCONT');
  }

  async drop(): Promise<void> {
    if (!this.port) return;
    await this.thaw().catch(() => undefined);
    await run('pg_dropcluster', [PG_VERSION, this.name, '--stop']).catch(() => undefined);
  }
}

/** A redis-server of this suite's own on a free port, without persistence. */
export class RedisServer {
  port = 0;
  private child?: ChildProcess;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.port ||= await freePort();
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () => (await run('redis-cli', ['-p', String(this.port), 'ping'])).stdout.includes('PONG'),
      10_000,
      'redis-server',
    );
    return this;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGCONT');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }
}

const BIN = join(import.meta.dirname, '../../bin/parley.js');

/** `parley serve` in a child process, its output collected. */
export class ServeProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(
    readonly port: number,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: String(port),
        BCRYPT_COST: '4',
        WEBHOOK_WORKER: 'false',
        TEST_DATABASE_URL: '',
        REDIS_URL: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  /** Log lines (JSON) whose message matches. */
  logLines(msg: RegExp): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => msg.test(String(line.msg)));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
