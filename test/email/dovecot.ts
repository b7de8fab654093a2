import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort, waitFor } from '../helpers/net.js';

/** Debian's Dovecot, started for a test on a free port with a temporary configuration and mail directory. */
export interface Dovecot {
  port: number;
  user: string;
  password: string;
  /** Delivers a raw mail into the user's INBOX by IMAP APPEND. */
  append(raw: string): Promise<void>;
  /** Deletes every mail of the INBOX (each test starts with an empty mailbox). */
  clear(): Promise<void>;
  /** Flags of the INBOX's mails by UID. */
  flags(): Promise<Map<number, string[]>>;
  /** Successful IMAP logins so far (from Dovecot's log). */
  logins(): number;
  /** Closes every client connection (the server stays): a connection killed mid-batch. */
  kickConnections(): void;
  stop(): Promise<void>;
}

export const DOVECOT_BINARY = '/usr/sbin/dovecot';

function passwdEntry(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`user ${name} missing`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** `connections`: how many IMAP connections of the one user the server takes (benchmarks hold hundreds). */
export async function startDovecot(options: { connections?: number } = {}): Promise<Dovecot> {
  const connections = options.connections ?? 10;
  // One imap process per connection (Dovecot's own memory, not the service's).
  const imapService =
    connections > 10
      ? `service imap {
  process_limit = ${connections + 10}
}
protocol imap {
  mail_max_userip_connections = ${connections + 10}
}
default_client_limit = ${connections + 100}
`
      : '';
  const dir = mkdtempSync(join(tmpdir(), 'parley-dovecot-'));
  const port = await freePort();
  const user = 'bot@example.test';
  const password = 'imap-secret-for-tests';
  // Dovecot's login processes refuse to run as root: as root, its own users take their places.
  const root = process.getuid?.() === 0;
  const me = userInfo();
  const internal = root ? 'dovecot' : me.username;
  const login = root ? 'dovenull' : me.username;
  const owner = root ? passwdEntry('dovecot') : { uid: me.uid, gid: me.gid };
  for (const sub of ['run', 'state', 'mail', 'home']) mkdirSync(join(dir, sub));
  if (root) {
    chownSync(dir, owner.uid, owner.gid);
    for (const sub of ['mail', 'home']) chownSync(join(dir, sub), owner.uid, owner.gid);
  }
  writeFileSync(join(dir, 'passwd'), `${user}:{PLAIN}${password}\n`);
  const group = root
    ? 'dovecot'
    : (readFileSync('/etc/group', 'utf8')
        .split('\n')
        .find((l) => l.split(':')[2] === String(me.gid))
        ?.split(':')[0] ?? me.username);
  writeFileSync(
    join(dir, 'dovecot.conf'),
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${internal}
default_internal_group = ${group}
default_login_user = ${login}
first_valid_uid = ${owner.uid}
mail_location = maildir:${dir}/mail/%u
mailbox_idle_check_interval = 1 secs
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${owner.uid} gid=${owner.gid} home=${dir}/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
${imapService}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT_BINARY, ['-F', '-c', join(dir, 'dovecot.conf')], {
    stdio: 'ignore',
  });
  const client = () =>
    new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      doSTARTTLS: false,
      auth: { user, pass: password },
      logger: false,
    });
  // Ready when a login works.
  await waitFor(
    async () => {
      const c = client();
      c.on('error', () => undefined);
      await c.connect();
      await c.logout();
      return true;
    },
    10_000,
    'a login at dovecot',
    100,
  );
  return {
    port,
    user,
    password,
    async append(raw) {
      const c = client();
      c.on('error', () => undefined);
      await c.connect();
      try {
        await c.append('INBOX', raw);
      } finally {
        await c.logout();
      }
    },
    async clear() {
      const c = client();
      c.on('error', () => undefined);
      await c.connect();
      const lock = await c.getMailboxLock('INBOX');
      try {
        if ((c.mailbox || undefined)?.exists) await c.messageDelete('1:*');
      } finally {
        lock.release();
        await c.logout();
      }
    },
    async flags() {
      const c = client();
      c.on('error', () => undefined);
      await c.connect();
      const result = new Map<number, string[]>();
      const lock = await c.getMailboxLock('INBOX');
      try {
        for await (const m of c.fetch('1:*', { uid: true, flags: true }))
          result.set(m.uid, [...(m.flags ?? [])]);
      } finally {
        lock.release();
        await c.logout();
      }
      return result;
    },
    logins() {
      try {
        return (readFileSync(join(dir, 'dovecot.log'), 'utf8').match(/imap-login: (Info: )?Login: /g) ?? [])
          .length;
      } catch {
        return 0;
      }
    },
    kickConnections() {
      spawn('/usr/bin/doveadm', ['-c', join(dir, 'dovecot.conf'), 'kick', user], { stdio: 'ignore' });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
