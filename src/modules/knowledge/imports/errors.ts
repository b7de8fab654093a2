/**
 * Why one document of an import could not be imported: a stable code for clients and a German
 * sentence for people (the language of the service's other user-facing texts). Nothing of such
 * a document is stored.
 */
export type ImportErrorCode =
  | 'unsupported_format'
  | 'too_large'
  | 'damaged'
  | 'encrypted'
  | 'no_text_layer'
  | 'no_text'
  | 'too_many_entries'
  | 'invalid_entry'
  | 'refused_address'
  | 'robots_disallowed'
  | 'http_status'
  | 'timeout'
  | 'fetch_failed'
  | 'too_many_redirects'
  | 'not_a_sitemap'
  | 'page_limit'
  | 'attempts_exhausted'
  | 'document_too_large'
  | 'too_many_pages'
  | 'compression_ratio'
  | 'parser_timeout'
  | 'parser_memory';

export class ImportDocumentError extends Error {
  constructor(
    readonly code: ImportErrorCode,
    message: string,
    /** The HTTP status of an http_status error. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ImportDocumentError';
  }
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The German sentences, one place for all of them. */
export const importErrors = {
  unsupportedFormat: () =>
    new ImportDocumentError(
      'unsupported_format',
      'Dateiformat nicht unterstützt: erlaubt sind PDF, DOCX, HTML, Text und Markdown.',
    ),
  tooLarge: (maxBytes: number) =>
    new ImportDocumentError('too_large', `Das Dokument ist größer als ${megabytes(maxBytes)}.`),
  damaged: (format: string) =>
    new ImportDocumentError('damaged', `Die Datei ist beschädigt oder kein gültiges ${format}.`),
  encrypted: () =>
    new ImportDocumentError('encrypted', 'Das PDF ist passwortgeschützt und kann nicht gelesen werden.'),
  noTextLayer: () =>
    new ImportDocumentError(
      'no_text_layer',
      'Das PDF enthält keinen Text, nur Bilder (z. B. ein Scan). Bitte ein PDF mit Textebene hochladen oder den Text vorher erkennen lassen (OCR).',
    ),
  noText: () => new ImportDocumentError('no_text', 'Das Dokument enthält keinen Text.'),
  tooManyEntries: (max: number) =>
    new ImportDocumentError(
      'too_many_entries',
      `Das Dokument ergäbe mehr als ${max} Einträge; höchstens ${max} pro Dokument sind erlaubt. Bitte das Dokument aufteilen.`,
    ),
  tooManyPages: (pages: number, max: number) =>
    new ImportDocumentError(
      'too_many_pages',
      `Das PDF hat ${pages} Seiten; höchstens ${max} Seiten pro Dokument sind erlaubt. Bitte das Dokument aufteilen.`,
    ),
  tooManyCharacters: (max: number) =>
    new ImportDocumentError(
      'document_too_large',
      `Das Dokument enthält mehr als ${max.toLocaleString('de-DE')} Zeichen Text. Bitte das Dokument aufteilen.`,
    ),
  unpackedTooLarge: (maxBytes: number) =>
    new ImportDocumentError(
      'document_too_large',
      `Das Dokument ist entpackt größer als ${megabytes(maxBytes)} und wird nicht gelesen.`,
    ),
  compressionRatio: (max: number) =>
    new ImportDocumentError(
      'compression_ratio',
      `Ein Teil des Dokuments ist mehr als ${max}-fach komprimiert (typisch für eine ZIP-Bombe) und wird nicht entpackt.`,
    ),
  parserTimeout: (ms: number) =>
    new ImportDocumentError(
      'parser_timeout',
      `Das Lesen des Dokuments hat länger als ${Math.ceil(ms / 1000)} s gedauert und wurde abgebrochen.`,
    ),
  parserMemory: (mb: number) =>
    new ImportDocumentError(
      'parser_memory',
      `Das Lesen des Dokuments brauchte mehr als ${mb} MB Arbeitsspeicher und wurde abgebrochen.`,
    ),
  invalidEntry: (title: string, reason: string) =>
    new ImportDocumentError(
      'invalid_entry',
      `Der Abschnitt „${title}“ kann nicht gespeichert werden: ${reason}`,
    ),
  refusedAddress: (host: string) =>
    new ImportDocumentError(
      'refused_address',
      `Die Adresse ${host} zeigt auf ein internes Netz oder ist nicht erreichbar und wird nicht abgerufen.`,
    ),
  robotsDisallowed: (url: string) =>
    new ImportDocumentError(
      'robots_disallowed',
      `Die Seite ${url} ist laut robots.txt für Crawler gesperrt.`,
    ),
  httpStatus: (status: number) =>
    new ImportDocumentError('http_status', `Die Seite antwortete mit HTTP-Status ${status}.`, status),
  timeout: (ms: number) =>
    new ImportDocumentError(
      'timeout',
      `Die Seite hat nicht innerhalb von ${Math.ceil(ms / 1000)} s geantwortet.`,
    ),
  fetchFailed: () => new ImportDocumentError('fetch_failed', 'Die Seite konnte nicht abgerufen werden.'),
  tooManyRedirects: (max: number) =>
    new ImportDocumentError('too_many_redirects', `Die Seite leitet mehr als ${max}-mal weiter.`),
  notASitemap: () =>
    new ImportDocumentError(
      'not_a_sitemap',
      'Die Adresse liefert keine XML-Sitemap (urlset oder sitemapindex).',
    ),
  pageLimit: (listed: number, max: number) =>
    new ImportDocumentError(
      'page_limit',
      `Die Sitemap listet ${listed} Seiten; importiert werden nur die ersten ${max}.`,
    ),
  attemptsExhausted: () =>
    new ImportDocumentError(
      'attempts_exhausted',
      'Die Verarbeitung des Dokuments wurde unterbrochen (der Dienst wurde dabei beendet) und wird nicht wiederholt. Bitte das Dokument prüfen und erneut hochladen.',
    ),
};
