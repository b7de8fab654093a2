/**
 * The share link: a hosted page per bot at `/c/<bot id>`, served by the service itself (not the
 * dashboard), with the widget full screen. The page's own origin counts as allowed for its bot
 * (access.ts `entryOf`) while the bot's share link is on; switched off, the page is a 404 in
 * words. The page's Content-Security-Policy admits only the service's own scripts, styles and
 * requests: no inline script, no inline style, no frames.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { isUuid } from '../../shared/ids.js';
import * as repo from './repository.js';

export const SHARE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TEXTS = {
  de: {
    noscript: 'Für diesen Chat wird JavaScript benötigt.',
    missingTitle: 'Chat nicht gefunden',
    missing:
      'Diesen Chat gibt es nicht oder er ist ausgeschaltet. Bitte fragen Sie bei dem Anbieter nach, der Ihnen den Link gegeben hat.',
  },
  en: {
    noscript: 'This chat needs JavaScript.',
    missingTitle: 'Chat not found',
    missing: 'This chat does not exist or has been switched off. Please ask whoever gave you the link.',
  },
} as const;

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function page(language: 'de' | 'en', title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="${language}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="referrer" content="no-referrer">' +
    `<title>${escapeHtml(title)}</title></head><body>${body}</body></html>\n`
  );
}

export function sharePage(bot: { name: string; language: 'de' | 'en'; publishableKey: string }): string {
  const texts = TEXTS[bot.language];
  return page(
    bot.language,
    bot.name,
    `<noscript><p>${escapeHtml(texts.noscript)}</p></noscript>` +
      `<script src="/widget/v1.js" data-key="${escapeHtml(bot.publishableKey)}" data-fullscreen="true" async></script>`,
  );
}

/** Unknown bot or share link off: a page in words, German and English (the language is not known). */
export function missingPage(): string {
  return page(
    'de',
    `${TEXTS.de.missingTitle} · ${TEXTS.en.missingTitle}`,
    `<h1>${TEXTS.de.missingTitle}</h1><p>${escapeHtml(TEXTS.de.missing)}</p>` +
      `<h2 lang="en">${TEXTS.en.missingTitle}</h2><p lang="en">${escapeHtml(TEXTS.en.missing)}</p>`,
  );
}

export const sharePageRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/c/:bot',
    {
      schema: {
        tags: ['widget'],
        operationId: 'getSharePage',
        summary:
          "The bot's hosted chat page (share link): the widget full screen; 404 while the switch is off",
        security: [],
        params: Type.Object({ bot: Type.String({ maxLength: 100, description: 'Bot id' }) }),
        response: {
          200: { type: 'string', description: 'text/html' },
          404: { type: 'string', description: 'text/html: the chat does not exist or is switched off' },
        },
      },
    },
    async (request, reply) => {
      const ref = request.params.bot;
      const shared = isUuid(ref) ? await repo.findShared(ctx.db, ref) : undefined;
      reply
        .header('content-security-policy', SHARE_PAGE_CSP)
        .header('cache-control', 'no-cache')
        .header('x-robots-tag', 'noindex')
        .type('text/html; charset=utf-8');
      if (!shared) return reply.code(404).send(missingPage());
      return sharePage({
        name: shared.bot_name,
        language: shared.language,
        publishableKey: shared.publishable_key,
      });
    },
  );
};
