import nodemailer from 'nodemailer';
import type { Config } from '../../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends one e-mail; rejects when the SMTP server does not accept it. */
export type SendMail = (mail: Mail) => Promise<void>;

const mailers = new WeakMap<Config, SendMail | null>();

/**
 * The SMTP sender of this configuration (nodemailer, one connection per message, so nothing
 * stays open between invitations), or null when `SMTP_URL` is not set.
 */
export function mailerFor(config: Config): SendMail | null {
  if (mailers.has(config)) return mailers.get(config)!;
  let send: SendMail | null = null;
  if (config.mail.smtpUrl) {
    const transport = nodemailer.createTransport(config.mail.smtpUrl);
    send = async (mail) => {
      await transport.sendMail({ from: config.mail.from, ...mail });
    };
  }
  mailers.set(config, send);
  return send;
}
