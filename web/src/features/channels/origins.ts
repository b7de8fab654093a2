/**
 * A website origin as the service stores it (`scheme://host[:port]`, lower case, default port
 * dropped), or null when the value is not one (a path, a query, credentials, another scheme).
 */
export function canonicalOrigin(value: string): string | null {
  const text = value.trim();
  if (!text || text.length > 300) return null;
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password || url.search || url.hash) return null;
    if (url.pathname !== '/' && url.pathname !== '') return null;
    // new URL keeps a trailing path of "/" only when none was given, and never a "?" or "#" alone.
    if (/[?#]/.test(text) || /^[a-z]+:\/\/[^/]+\/./i.test(text)) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** The snippet a website adds, and the three lines of its Content-Security-Policy. */
export function snippetOf(serviceOrigin: string, publishableKey: string): string {
  return `<script src="${serviceOrigin}/widget/v1.js" data-key="${publishableKey}" async></script>`;
}

export function cspLinesOf(serviceOrigin: string): string {
  return [
    `script-src ${serviceOrigin};`,
    `connect-src ${serviceOrigin};`,
    `style-src ${serviceOrigin};`,
  ].join('\n');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The document of the live preview: the real widget in preview mode (no requests, nothing
 * stored), showing the given name, language and theme.
 */
export function previewDocument(
  serviceOrigin: string,
  publishableKey: string,
  bot: { name: string; language: string; theme: Record<string, unknown> },
): string {
  const preview = escapeAttribute(JSON.stringify(bot));
  return (
    '<!doctype html><html><head><meta charset="utf-8"><title>Preview</title></head>' +
    '<body style="margin:0;background:#f1f3f5;min-height:100vh">' +
    `<script src="${escapeAttribute(serviceOrigin)}/widget/v1.js" data-key="${escapeAttribute(publishableKey)}" ` +
    `data-preview="${preview}" async></script></body></html>`
  );
}
