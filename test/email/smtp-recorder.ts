import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  raw: string;
  parsed: ParsedMail;
  from: string;
  to: string[];
}

/** A local SMTP server (smtp-server) that records what it receives; it can refuse mails with a code first. */
export interface SmtpRecorder {
  port: number;
  received: ReceivedMail[];
  /** The next `count` mails are answered with this code (e.g. 451) instead of accepted. */
  refuseNext(count: number, code: number): void;
  attempts: number;
  close(): Promise<void>;
}

export async function startSmtpRecorder(): Promise<SmtpRecorder> {
  const received: ReceivedMail[] = [];
  let refusals = 0;
  let refusalCode = 451;
  const state = { attempts: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'bot' });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        state.attempts += 1;
        if (refusals > 0) {
          refusals -= 1;
          const error = new Error('Try again later') as Error & { responseCode: number };
          error.responseCode = refusalCode;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          received.push({
            raw,
            parsed,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          });
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    refuseNext(count, code) {
      refusals = count;
      refusalCode = code;
    },
    get attempts() {
      return state.attempts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
