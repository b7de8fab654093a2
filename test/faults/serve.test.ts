import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../chat/fake-model-server.js';
import { freePort, PgCluster, RedisServer, ServeProcess, waitFor } from './infra.js';

/** Start-up takes a while on a busy machine (TypeScript is compiled on the fly). */
const START_MS = 90_000;
const GRACE_MS = 4000;

function post(url: string, body: unknown, headers: Record<string, string>, agent?: Agent) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function get(url: string, agent?: Agent) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    request(url, { agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    })
      .on('error', reject)
      .end();
  });
}

describe('parley serve: start without its dependencies, start against a frozen database, shutdown', () => {
  const cluster = new PgCluster();
  const redis = new RedisServer();
  const model = new FakeModelServer();
  const processes: ServeProcess[] = [];

  beforeAll(async () => {
    await Promise.all([cluster.create(), model.start()]);
    await cluster.stop();
    redis.port = await freePort();
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await redis.stop();
    await model.stop();
    await cluster.drop();
  });

  it('starts without PostgreSQL and Redis, answers 503, and recovers by itself when they appear; SIGTERM with keep-alive clients exits within the grace period', async () => {
    const serve = new ServeProcess(await freePort(), {
      DATABASE_URL: cluster.url,
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      REDIS_URL: redis.url,
      PARLEY_SEED_DEMO: 'true',
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: `${model.url}/v1`,
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    processes.push(serve);
    await waitFor(async () => (await get(`${serve.url}/health`)).status === 200, START_MS, '/health');
    const ready = await get(`${serve.url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'unavailable', missing: ['database', 'redis'] });
    const refused = await post(
      `${serve.url}/api/bot-chat/00000000-0000-4000-8000-000000000000/chat`,
      { message: 'Hallo' },
      {},
    );
    expect(refused.status).toBe(503);

    await Promise.all([cluster.start(), redis.start()]);
    const appeared = Date.now();
    await waitFor(async () => (await get(`${serve.url}/ready`)).status === 200, 30_000, '/ready 200');
    const recoveryMs = Date.now() - appeared;
    console.log(`start without dependencies: ready ${recoveryMs} ms after PostgreSQL and Redis appeared`);
    expect(recoveryMs).toBeLessThan(15_000);

    // Migrated and seeded once the database appeared: the demo key answers.
    await waitFor(async () => /svc_\S+/.test(serve.stdout), 10_000, 'the demo key');
    const key = /API key:\s+(svc_\S+)/.exec(serve.stdout)![1]!;
    const botId = /curl -s \S+\/api\/bot-chat\/([0-9a-f-]{36})\/chat/.exec(serve.stdout)![1]!;
    const headers = { authorization: `Bearer ${key}` };
    const first = await post(`${serve.url}/api/bot-chat/${botId}/chat`, { message: 'Hallo' }, headers);
    expect(first.status, first.body).toBe(200);
    expect(serve.logLines(/^database unavailable$/)).toHaveLength(1);
    expect(serve.logLines(/^database available again$/)).toHaveLength(1);

    // Shutdown: one keep-alive connection idle, one request that finishes within the grace
    // period, and one that never would (its model does not answer): the grace period ends it.
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    expect((await get(`${serve.url}/health`, agent)).status).toBe(200);
    model.queue = [{ kind: 'delay', ms: 1500, text: 'Eine Antwort, die etwas dauert.' }, { kind: 'hang' }];
    const modelCalls = model.requests.length;
    const inFlight = post(`${serve.url}/api/bot-chat/${botId}/chat`, { message: 'Noch eine Frage' }, headers);
    await waitFor(async () => model.requests.length === modelCalls + 1, 10_000, 'the first model call');
    const hanging = post(
      `${serve.url}/api/bot-chat/${botId}/chat`,
      { message: 'Und noch eine' },
      headers,
    ).then(
      (res) => res.status,
      () => 'connection closed',
    );
    await waitFor(async () => model.requests.length === modelCalls + 2, 10_000, 'the second model call');
    const signalled = Date.now();
    serve.signal('SIGTERM');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await serve.exited).toBe(0);
    const exitMs = Date.now() - signalled;
    console.log(
      `SIGTERM with keep-alive clients: in-flight request answered, a hanging one cut, exit after ${exitMs} ms`,
    );
    expect(await hanging).toBe('connection closed');
    expect(exitMs).toBeGreaterThanOrEqual(GRACE_MS - 200);
    expect(exitMs).toBeLessThan(GRACE_MS + 1000);
    agent.destroy();
  });

  it('a start against a frozen database still listens and becomes ready when it thaws', async () => {
    await cluster.freeze();
    const serve = new ServeProcess(await freePort(), {
      DATABASE_URL: cluster.url,
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
    });
    processes.push(serve);
    try {
      await waitFor(async () => (await get(`${serve.url}/health`)).status === 200, START_MS, '/health');
      const started = Date.now();
      expect((await get(`${serve.url}/ready`)).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await cluster.thaw();
    }
    await waitFor(async () => (await get(`${serve.url}/ready`)).status === 200, 30_000, '/ready 200');
    serve.signal('SIGTERM');
    expect(await serve.exited).toBe(0);
  });
});
