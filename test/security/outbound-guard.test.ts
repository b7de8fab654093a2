import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetRefusedError } from '../../src/shared/ssrf.js';
import {
  checkHostName,
  checkOutboundHost,
  checkOutboundUrl,
  connectGuarded,
} from '../../src/shared/outbound.js';
import { imapClient } from '../../src/modules/mailboxes/connectors/imap.js';
import { smtpTransport } from '../../src/modules/mailboxes/connectors/smtp.js';
import type { MailboxRow } from '../../src/modules/mailboxes/repository.js';
import type { SecretStore } from '../../src/modules/mailboxes/secret-store.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { IMAP_MAILBOX } from '../email/mailbox-setup.js';

const BANNER = 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3';

/** A loopback service that greets like an SSH server and counts who connected. */
async function bannerServer(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write(`${BANNER}\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const strict = { allowPrivate: false };

/** Host spellings that reach this machine or the internal network. */
const REFUSED_HOSTS = [
  '127.0.0.1',
  '2130706433', // decimal 127.0.0.1
  '0x7f000001', // hex
  '0x7f.1',
  '127.1', // shorthand
  '0177.0.0.1', // octal
  '017700000001',
  'localhost',
  'LOCALHOST.',
  'imap.localhost',
  '::1',
  '::ffff:127.0.0.1', // IPv4-mapped
  '[::ffff:7f00:1]',
  '169.254.169.254', // cloud metadata
  '10.0.0.5',
  '172.16.3.4',
  '192.168.1.1',
  '100.64.0.1', // carrier-grade NAT
  '0.0.0.0',
  '224.0.0.1', // multicast
  '255.255.255.255',
  '240.0.0.1', // reserved
  'fe80::1', // link-local
  'fc00::1', // unique local
];

describe('outbound guard: host forms', () => {
  it.each(REFUSED_HOSTS)('refuses %s without connecting', async (host) => {
    await expect(checkOutboundHost(host, strict)).rejects.toBeInstanceOf(TargetRefusedError);
  });

  it.each(['8.8.8.8', '2001:4860:4860::8888'])('allows the public address %s', async (host) => {
    await expect(checkOutboundHost(host, strict)).resolves.toHaveLength(1);
  });

  it.each([
    ['mail.example.com', 'mail.example.com'],
    ['IMAP.Example.COM.', 'imap.example.com'],
    ['1.2.3.4', '1.2.3.4'],
  ])('reads the name %s as %s', (raw, expected) => expect(checkHostName(raw)).toBe(expected));

  it.each(['a..b', '-a.example', 'a_b.example', 'example.123', 'x.0x10', ''])(
    'refuses the malformed name %j',
    (raw) => expect(() => checkHostName(raw)).toThrow(TargetRefusedError),
  );

  it('allows loopback only with the switch on', async () => {
    await expect(checkOutboundHost('127.0.0.1', { allowPrivate: true })).resolves.toHaveLength(1);
    await expect(checkOutboundHost('localhost', { allowPrivate: true })).resolves.not.toHaveLength(0);
  });

  it('checks provider base URLs: https, no credentials, no internal host', async () => {
    await expect(checkOutboundUrl('https://8.8.8.8/v1', strict)).resolves.toBeInstanceOf(URL);
    for (const raw of [
      'http://8.8.8.8/v1',
      'https://user:pw@8.8.8.8/',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:127.0.0.1]/',
      'https://2130706433/',
      'https://localhost/',
    ]) {
      await expect(checkOutboundUrl(raw, strict), raw).rejects.toBeInstanceOf(TargetRefusedError);
    }
  });
});

describe('outbound guard: connections', () => {
  let banner: Awaited<ReturnType<typeof bannerServer>>;
  beforeAll(async () => {
    banner = await bannerServer();
  });
  afterAll(() => banner.close());

  const mailbox = (host: string, port: number) =>
    ({
      id: '00000000-0000-4000-8000-000000000001',
      address: 'a@example.test',
      settings: { imap_host: host, imap_port: port, imap_tls: false, smtp_host: host, smtp_port: port },
      secrets: {},
    }) as unknown as MailboxRow;
  const secrets = { decryptSecret: () => 'pw' } as unknown as SecretStore;

  it('connectGuarded refuses loopback before connecting, allows it with the switch', async () => {
    const before = banner.connections();
    await expect(
      connectGuarded('127.0.0.1', banner.port, { ...strict, timeoutMs: 2000 }),
    ).rejects.toBeInstanceOf(TargetRefusedError);
    await expect(
      connectGuarded('localhost', banner.port, { ...strict, timeoutMs: 2000 }),
    ).rejects.toBeInstanceOf(TargetRefusedError);
    expect(banner.connections()).toBe(before);
    const socket = await connectGuarded('127.0.0.1', banner.port, { allowPrivate: true, timeoutMs: 2000 });
    socket.destroy();
    expect(banner.connections()).toBe(before + 1);
  });

  it('IMAP and SMTP clients never reach a loopback host with the switch off', async () => {
    const before = banner.connections();
    for (const host of ['127.0.0.1', 'localhost', '2130706433']) {
      const imap = imapClient(mailbox(host, banner.port), secrets, strict);
      imap.on('error', () => undefined);
      const imapError = await imap.connect().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(imapError, host).toBeDefined();
      expect(String((imapError as Error).message)).not.toContain('SSH-2.0');
      imap.close();
      const smtp = smtpTransport(mailbox(host, banner.port), secrets, 2000, strict);
      await expect(smtp.verify(), host).rejects.toBeInstanceOf(TargetRefusedError);
      smtp.close();
    }
    expect(banner.connections()).toBe(before);
  });
});

for (const allowed of [false, true]) {
  const logs: string[] = [];
  describeApp(
    `outbound guard: mailbox hosts (loopback ${allowed ? 'allowed' : 'refused'})`,
    (get) => {
      let banner: Awaited<ReturnType<typeof bannerServer>>;
      beforeAll(async () => {
        banner = await bannerServer();
      });
      afterAll(() => banner.close());
      const url = (botId: string, rest = '') => `/api/bots/${botId}/mailboxes${rest}`;

      if (!allowed) {
        it('refuses internal IMAP and SMTP hosts at create and update with a 400 in words', async () => {
          const tenant = await buildTenant(get().ctx);
          const bot = await tenant.bot();
          for (const host of [
            '127.0.0.1',
            'localhost',
            '2130706433',
            '0x7f.1',
            '169.254.169.254',
            '10.1.2.3',
          ]) {
            for (const field of ['imap_host', 'smtp_host']) {
              const res = await get().app.inject({
                method: 'POST',
                url: url(bot.id),
                headers: tenant.owner.headers,
                payload: {
                  ...IMAP_MAILBOX,
                  settings: {
                    ...IMAP_MAILBOX.settings,
                    imap_host: '8.8.8.8',
                    smtp_host: '8.8.4.4',
                    [field]: host,
                  },
                },
              });
              expect(res.statusCode, `${field}=${host}`).toBe(400);
              expect(res.json().message).toMatch(new RegExp(`^Field 'settings\\.${field}' refused: `));
              expect(res.json().details).toMatchObject({ field: `settings.${field}` });
            }
          }
          expect(
            await get().db.query('SELECT 1 FROM mailboxes WHERE tenant_id = $1', [tenant.id]),
          ).toHaveLength(0);
          // A public address is accepted; changing it to an internal one is refused and changes nothing.
          const created = await get().app.inject({
            method: 'POST',
            url: url(bot.id),
            headers: tenant.owner.headers,
            payload: {
              ...IMAP_MAILBOX,
              settings: { ...IMAP_MAILBOX.settings, imap_host: '8.8.8.8', smtp_host: '8.8.4.4' },
            },
          });
          expect(created.statusCode, created.body).toBe(201);
          const patched = await get().app.inject({
            method: 'PATCH',
            url: url(bot.id, `/${created.json().id}`),
            headers: tenant.owner.headers,
            payload: { settings: { smtp_host: '169.254.169.254' } },
          });
          expect(patched.statusCode).toBe(400);
          const [row] = await get().db.query<{ settings: { smtp_host: string } }>(
            'SELECT settings FROM mailboxes WHERE id = $1',
            [created.json().id],
          );
          expect(row!.settings.smtp_host).toBe('8.8.4.4');
        });
      }

      it(`the connection check ${allowed ? 'reaches' : 'never reaches'} a loopback banner server and never echoes its greeting`, async () => {
        const tenant = await buildTenant(get().ctx);
        const bot = await tenant.bot();
        const created = await get().app.inject({
          method: 'POST',
          url: url(bot.id),
          headers: tenant.owner.headers,
          payload: {
            ...IMAP_MAILBOX,
            settings: { ...IMAP_MAILBOX.settings, imap_host: '8.8.8.8', smtp_host: '8.8.4.4' },
          },
        });
        expect(created.statusCode, created.body).toBe(201);
        const id = created.json().id as string;
        // The host now points at this machine (as a DNS answer that changed after the check would).
        const point = async (port: number) =>
          get().db.query(`UPDATE mailboxes SET settings = settings || $2::jsonb WHERE id = $1`, [
            id,
            JSON.stringify({ imap_host: '127.0.0.1', imap_port: port, imap_tls: false }),
          ]);
        const check = async () => {
          const res = await get().app.inject({
            method: 'POST',
            url: url(bot.id, `/${id}/test`),
            headers: tenant.owner.headers,
          });
          expect(res.statusCode).toBe(200);
          return res;
        };
        const before = banner.connections();
        await point(banner.port);
        const open = await check();
        expect(open.json()).toMatchObject({ ok: false, checked: [] });
        for (const text of [open.body, JSON.stringify(logs)]) {
          expect(text).not.toContain('SSH-2.0');
          expect(text).not.toContain('OpenSSH');
        }
        const [stored] = await get().db.query<{ last_error: string; last_error_code: string }>(
          'SELECT last_error, last_error_code FROM mailboxes WHERE id = $1',
          [id],
        );
        expect(stored!.last_error_code).toBe(open.json().error_code);
        expect(stored!.last_error).not.toContain('SSH');
        if (allowed) {
          expect(banner.connections()).toBeGreaterThan(before);
          expect(open.json().error_code).not.toBe('target_refused');
        } else {
          expect(banner.connections()).toBe(before);
          expect(open.json()).toMatchObject({ error_code: 'target_refused', error: /interne, private/ });
          expect(open.json().error_detail).toMatch(/internal/);
          // A closed port answers exactly as an open one: nothing was contacted.
          await point(9);
          const closed = await check();
          expect(closed.json().error).toBe(open.json().error);
        }
      });
    },
    {
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: String(allowed), LOG_LEVEL: 'debug' },
      logStream: { write: (line: string) => void logs.push(line) },
    },
  );
}
