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
