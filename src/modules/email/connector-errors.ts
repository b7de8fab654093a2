/**
 * A connector's failure (IMAP, SMTP, Microsoft Graph) as a stable code with a sentence in German
 * and English that says what happened and what to do. The raw detail stays beside it for the
 * curious, without anything the remote server said in its greeting. No I/O.
 */
import { isRefusal } from '../../shared/outbound.js';

export const CONNECTOR_ERRORS = {
  target_refused: {
    de: 'Dieser Server ist nicht erlaubt: interne, private oder reservierte Adressen werden nie verbunden. Tragen Sie den öffentlichen Namen Ihres Mailservers ein.',
    en: 'This server is not allowed: internal, private or reserved addresses are never connected. Enter the public name of your mail server.',
  },
  dns: {
    de: 'Der Servername wurde nicht gefunden (DNS). Prüfen Sie die Schreibweise des Servers.',
    en: 'The server name was not found (DNS). Check how the server is spelt.',
  },
  refused: {
    de: 'Der Server antwortet nicht (Verbindung abgelehnt). Prüfen Sie Server und Port.',
    en: 'The server does not answer (connection refused). Check server and port.',
  },
  timeout: {
    de: 'Der Server antwortet nicht rechtzeitig (Zeitüberschreitung). Prüfen Sie Server, Port und Firewall.',
    en: 'The server does not answer in time (timeout). Check server, port and firewall.',
  },
  tls: {
    de: 'Die verschlüsselte Verbindung kam nicht zustande (TLS). Prüfen Sie die TLS-Einstellung und den Port.',
    en: 'The encrypted connection failed (TLS). Check the TLS setting and the port.',
  },
  auth: {
    de: 'Die Anmeldung wurde abgelehnt. Prüfen Sie Benutzername und Passwort.',
    en: 'The login was refused. Check user name and password.',
  },
  quota: {
    de: 'Das Postfach ist voll (Speicherplatz erschöpft). Räumen Sie das Postfach auf oder erweitern Sie es.',
    en: 'The mailbox is full (quota exceeded). Clean up the mailbox or enlarge it.',
  },
  folder_missing: {
    de: 'Der Ordner wurde im Postfach nicht gefunden. Prüfen Sie den Ordnernamen.',
    en: 'The folder was not found in the mailbox. Check the folder name.',
  },
  protocol: {
    de: 'Unter dieser Adresse antwortet kein passender Mailserver. Prüfen Sie Server und Port.',
    en: 'No suitable mail server answers at this address. Check server and port.',
  },
  connection_lost: {
    de: 'Die Verbindung zum Server brach ab. Sie wird automatisch neu aufgebaut.',
    en: 'The connection to the server broke off. It is re-established automatically.',
  },
  graph_secret: {
    de: 'Microsoft 365 lehnt den Client-Secret ab (abgelaufen oder falsch). Legen Sie in Entra ein neues an und tragen Sie es ein.',
    en: 'Microsoft 365 refuses the client secret (expired or wrong). Create a new one in Entra and enter it.',
  },
  graph_unauthorized: {
    de: 'Microsoft 365 lehnt die Anmeldung ab (401). Prüfen Sie Mandanten-ID, Client-ID und Client-Secret.',
    en: 'Microsoft 365 refuses the login (401). Check tenant id, client id and client secret.',
  },
  graph_forbidden: {
    de: 'Microsoft 365 verweigert den Zugriff auf das Postfach (403). Erteilen Sie Mail.ReadWrite und Mail.Send mit Administratorzustimmung und prüfen Sie die Zugriffsrichtlinie.',
    en: 'Microsoft 365 denies access to the mailbox (403). Grant Mail.ReadWrite and Mail.Send with admin consent and check the access policy.',
  },
  graph_throttled: {
    de: 'Microsoft 365 bremst die Anfragen (429). Es wird später automatisch erneut versucht.',
    en: 'Microsoft 365 is throttling the requests (429). It is tried again later automatically.',
  },
  server_error: {
    de: 'Der Server meldet einen vorübergehenden Fehler. Es wird automatisch erneut versucht.',
    en: 'The server reports a temporary error. It is tried again automatically.',
  },
  lease_lost: {
    de: 'Eine andere Instanz hat das Postfach übernommen. Nichts zu tun.',
    en: 'Another instance took the mailbox over. Nothing to do.',
  },
  turn_reserved: {
    de: 'Eine Mail wird noch von einer abgebrochenen Antwort gehalten; sie wird beantwortet, sobald die Reservierung abläuft. Nichts zu tun.',
    en: 'A mail is still held by an interrupted answer; it is answered once the reservation runs out. Nothing to do.',
  },
  model_unavailable: {
    de: 'Das Sprachmodell oder die Datenbank ist gerade nicht erreichbar. Es wird automatisch erneut versucht.',
    en: 'The language model or the database cannot be reached right now. It is tried again automatically.',
  },
  unknown: {
    de: 'Unerwarteter Fehler der Verbindung. Details siehe unten; es wird automatisch erneut versucht.',
    en: 'Unexpected connection error. See the details below; it is tried again automatically.',
  },
} as const satisfies Record<string, { de: string; en: string }>;

export type ConnectorErrorCode = keyof typeof CONNECTOR_ERRORS;

export interface ConnectorErrorInput {
  message?: string;
  code?: string;
  /** SMTP reply code, or the HTTP status of a Graph answer. */
  responseCode?: number;
  status?: number;
  /** imapflow: the server refused the login. */
  authenticationFailed?: boolean;
  /** imapflow's server response text (not echoed). */
  responseText?: string;
  /** imapflow: the server's response status (NO/BAD) with a code such as [OVERQUOTA]. */
  serverResponseCode?: string;
}

const has = (text: string, pattern: RegExp) => pattern.test(text);

/** The code of a connector failure. */
export function connectorErrorCode(error: ConnectorErrorInput): ConnectorErrorCode {
  const code = (error.code ?? '').toUpperCase();
  const text = `${error.message ?? ''} ${error.responseText ?? ''} ${error.serverResponseCode ?? ''}`;
  const status =
    error.status ??
    (error.responseCode && error.responseCode < 600 && error.responseCode >= 100
      ? error.responseCode
      : undefined);
  if (has(text, /the mailbox lease was lost/i)) return 'lease_lost';
  if (
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EDNS' ||
    has(text, /getaddrinfo|ENOTFOUND|EAI_AGAIN/)
  )
    return 'dns';
  if (code === 'ECONNREFUSED' || has(text, /ECONNREFUSED/)) return 'refused';
  if (has(text, /AADSTS7000222|AADSTS7000215|invalid_client/i)) return 'graph_secret';
  if (
    has(text, /OVERQUOTA|quota|mailbox (is )?full/i) ||
    error.responseCode === 552 ||
    error.responseCode === 452
  )
    return 'quota';
  if (
    error.authenticationFailed ||
    code === 'EAUTH' ||
    code === 'AUTHENTICATIONFAILED' ||
    has(text, /AUTHENTICATIONFAILED|authentication failed|invalid (login|credentials)|\b535\b/i)
  )
    return 'auth';
  if (
    code.startsWith('ERR_SSL') ||
    code.startsWith('ERR_TLS') ||
    code.includes('CERT') ||
    code === 'ETLS' ||
    has(text, /certificate|self[- ]signed|wrong version number|SSL routines|TLS/i)
  )
    return 'tls';
  if (
    code === 'ETIMEDOUT' ||
    code === 'ETIMEOUT' ||
    code === 'CONNECT_TIMEOUT' ||
    code === 'GREETING_TIMEOUT' ||
    code === 'UPGRADE_TIMEOUT' ||
    has(text, /timed? ?out|timeout/i)
  )
    return 'timeout';
  if (has(text, /Invalid greeting|unexpected (server )?response|protocol/i) || code === 'EPROTOCOL')
    return 'protocol';
  if (
    has(text, /mailbox (doesn't|does not) exist|nonexistent|folder .* could not be opened|\[NONEXISTENT\]/i)
  )
    return 'folder_missing';
  if (has(text, /Idempotency-Key|turn_reserved/i)) return 'turn_reserved';
  if (status === 401) return 'graph_unauthorized';
  if (status === 403) return 'graph_forbidden';
  if (status === 429) return 'graph_throttled';
  if (status !== undefined && status >= 500) return 'server_error';
  if (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'NOCONNECTION' ||
    code === 'ECONNECTION' ||
    has(text, /connection (closed|not available|lost)|socket hang up|ECONNRESET|Connection not available/i)
  )
    return 'connection_lost';
  if (has(text, /model|database|service_unavailable/i)) return 'model_unavailable';
  return 'unknown';
}

/** The raw detail kept behind the words: the error's own message, never a server's greeting. */
export function connectorErrorDetail(error: ConnectorErrorInput, code: ConnectorErrorCode): string {
  if (code === 'protocol') return 'The server did not answer as a mail server does.';
  const message = (error.message ?? '').replace(/response=.*$/s, '').trim();
  const detail = [error.code, message].filter(Boolean).join(': ');
  return (detail || 'no detail').slice(0, 1000);
}

/** The sentence for a stored code (German unless English is asked for); null without one. */
export function connectorErrorText(code: string | null | undefined, language: string = 'de'): string | null {
  if (!code || !(code in CONNECTOR_ERRORS)) return null;
  return CONNECTOR_ERRORS[code as ConnectorErrorCode][language.toLowerCase().startsWith('en') ? 'en' : 'de'];
}

/** Code, words and detail of a failure at once. */
export function describeConnectorError(error: unknown): {
  code: ConnectorErrorCode;
  de: string;
  en: string;
  detail: string;
} {
  const input: ConnectorErrorInput =
    error && typeof error === 'object' ? (error as ConnectorErrorInput) : { message: String(error) };
  // The outbound guard's refusal: the host was never contacted; its message names only host and rule.
  if (isRefusal(error))
    return {
      code: 'target_refused',
      ...CONNECTOR_ERRORS.target_refused,
      detail: error.message.slice(0, 1000),
    };
  const code = connectorErrorCode(input);
  return { code, ...CONNECTOR_ERRORS[code], detail: connectorErrorDetail(input, code) };
}
