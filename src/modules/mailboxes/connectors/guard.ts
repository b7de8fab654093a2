/**
 * The outbound-connection guard (`shared/outbound.ts`) as IMAP and SMTP connections use it:
 * every connect resolves the mailbox's host again, refuses internal addresses and connects to
 * the checked address only. A refused host is never contacted. What a failed connection check
 * says is fixed wording chosen here, never the remote server's own text (a greeting could be
 * another service's banner).
 */
import net from 'node:net';
import tls from 'node:tls';
import type { ImapTransport, ImapTransportSocket } from 'imapflow';
import {
  checkLiteralHost,
  connectGuarded,
  isRefusal,
  outboundLookup,
  type OutboundPolicy,
} from '../../../shared/outbound.js';

/** An imapflow transport whose sockets go through the guard (implicit TLS and STARTTLS). */
export function guardedImapTransport(policy: OutboundPolicy): ImapTransport {
  const lookup = outboundLookup(policy);
  return {
    connect(options, onConnect): ImapTransportSocket {
      // Literal addresses skip `lookup`: refused here, before any socket exists.
      checkLiteralHost(options.host, policy);
      if (options.secure) {
        return tls.connect(
          {
            ...options.tls,
            host: options.host,
            port: options.port,
            ...(options.servername ? { servername: options.servername } : {}),
            lookup,
          },
          onConnect,
        );
      }
      return net.connect({ host: options.host, port: options.port, lookup }, onConnect);
    },
    upgrade(socket, options, onSecure): ImapTransportSocket {
      return tls.connect(
        {
          ...options.tls,
          socket: socket as net.Socket,
          ...(options.servername ? { servername: options.servername } : {}),
        },
        onSecure,
      );
    },
  };
}

type SocketCallback = (error: Error | null, socket?: { connection: net.Socket } | false) => void;

/** nodemailer's `getSocket`: a socket connected through the guard (TLS is then started by nodemailer). */
export function guardedSmtpSocket(policy: OutboundPolicy, timeoutMs: number) {
  return (options: { host?: string; port?: number }, callback: SocketCallback): void => {
    connectGuarded(options.host ?? '', options.port ?? 587, { ...policy, timeoutMs }).then(
      (connection) => callback(null, { connection }),
      (error: Error) => callback(error),
    );
  };
}

/**
 * A failed connection step in words: the guard's refusal as it is (it names only the host and
 * the rule), everything else by kind. Never the server's greeting or answer text.
 */
export function connectionFailure(step: 'IMAP' | 'SMTP', error: unknown): string {
  if (isRefusal(error)) return `${step}: connection refused by the outbound guard: ${error.message}`;
  const e = error as {
    code?: string;
    authenticationFailed?: boolean;
    responseCode?: number;
    serverResponseCode?: string;
    message?: string;
  };
  const code = e.code ?? '';
  if (e.authenticationFailed || code === 'EAUTH' || e.serverResponseCode === 'AUTHENTICATIONFAILED')
    return `${step}: the server refused the login (user name or password wrong)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EDNS')
    return `${step}: the host name cannot be resolved`;
  if (code === 'ECONNREFUSED')
    return `${step}: the server refused the connection (nothing listens on that port)`;
  if (code === 'ETIMEDOUT' || code === 'ETIMEOUT' || code === 'CONNECT_TIMEOUT' || code === 'GreetingTimeout')
    return `${step}: no answer from the server in time`;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'EConnectionClosed' || code === 'NoConnection')
    return `${step}: the server closed the connection`;
  if (code === 'ETLS' || code === 'ESOCKET' || /certificate|ssl|tls/i.test(e.message ?? ''))
    return `${step}: the secure connection (TLS) could not be established`;
  if (code === 'MailboxDoesNotExist' || code === 'NONEXISTENT') return `${step}: the folder does not exist`;
  return `${step}: the server did not answer as a ${step} server should (check host, port and TLS)`;
}
