/**
 * A small RFC 5322 / MIME reader for the e-mail fixtures: headers (unfolded, RFC 2047 encoded
 * words decoded in Subject and From), multipart bodies, quoted-printable and base64, charsets
 * TextDecoder knows. Enough for the fixtures, which stand in for what mailparser gives the
 * connectors.
 */
import { readFileSync } from 'node:fs';
import { addressesIn, headersFromBlock, type MailInput } from '../../src/modules/email/mail.js';

interface Part {
  headers: Record<string, readonly string[]>;
  body: string;
}

function splitHead(raw: string): Part {
  const text = raw.replace(/\r\n/g, '\n');
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? '' : text.slice(end + 2);
  return { headers: headersFromBlock(head), body };
}

function params(value: string): { type: string; params: Record<string, string> } {
  const [type, ...rest] = value.split(';');
  const out: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    out[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { type: (type ?? '').trim().toLowerCase(), params: out };
}

function bytesOf(body: string, encoding: string): Uint8Array {
  const enc = encoding.trim().toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (enc === 'quoted-printable') {
    const joined = body.replace(/=\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < joined.length; i++) {
      const ch = joined[i]!;
      if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(joined.slice(i + 1, i + 3))) {
        bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
        i += 2;
      } else bytes.push(...Buffer.from(ch, 'utf8'));
    }
    return Uint8Array.from(bytes);
  }
  return Buffer.from(body, 'utf8');
}

function decodeText(bytes: Uint8Array, charset: string | undefined): string {
  const cs = (charset ?? 'utf-8').toLowerCase();
  return new TextDecoder(cs === 'us-ascii' ? 'utf-8' : cs).decode(bytes);
}

/** RFC 2047 encoded words (B and Q). */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[bBqQ]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_m, cs: string, enc: string, data: string) => {
      const bytes =
        enc.toLowerCase() === 'b'
          ? Buffer.from(data, 'base64')
          : bytesOf(data.replace(/_/g, ' '), 'quoted-printable');
      return decodeText(bytes, cs);
    });
}

function collect(part: Part, out: { text?: string; html?: string }) {
  const ct = params(part.headers['content-type']?.[0] ?? 'text/plain');
  const disposition = (part.headers['content-disposition']?.[0] ?? '').toLowerCase();
  if (ct.type.startsWith('multipart/')) {
    const boundary = ct.params['boundary'];
    if (!boundary) return;
    const chunks = part.body.split(
      new RegExp(`^--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \t]*$`, 'm'),
    );
    for (const chunk of chunks.slice(1, -1)) collect(splitHead(chunk.replace(/^\n/, '')), out);
    return;
  }
  if (disposition.startsWith('attachment')) return;
  const cte = part.headers['content-transfer-encoding']?.[0] ?? '7bit';
  if (ct.type === 'text/plain' && out.text === undefined)
    out.text = decodeText(bytesOf(part.body, cte), ct.params['charset']).replace(/\n$/, '');
  else if (ct.type === 'text/html' && out.html === undefined)
    out.html = decodeText(bytesOf(part.body, cte), ct.params['charset']);
}

export function parseEml(raw: string): MailInput {
  const root = splitHead(raw);
  const out: { text?: string; html?: string } = {};
  collect(root, out);
  const first = (name: string) => root.headers[name]?.[0];
  return {
    headers: root.headers,
    from: addressesIn(decodeWords(first('from') ?? ''))[0] ?? null,
    to: [
      ...addressesIn((root.headers['to'] ?? []).join(',')),
      ...addressesIn((root.headers['cc'] ?? []).join(',')),
    ],
    subject: decodeWords(first('subject') ?? ''),
    contentType: first('content-type') ?? 'text/plain',
    text: out.text ?? '',
    html: out.html ?? null,
  };
}

export function readEml(path: string): MailInput {
  return parseEml(readFileSync(path, 'utf8'));
}
