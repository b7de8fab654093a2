import { expect, it } from 'vitest';
import { SHARE_PAGE_CSP } from '../../src/modules/widget/share-page.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { recordSecret } from '../helpers/log-sink.js';
import { send, SITE, startSession, widgetBot } from './helpers.js';

/** The service's own origin as light-my-request addresses it (Host: localhost:80). */
const OWN = 'http://localhost:80';
const HOST = { host: 'localhost:80' };

describeApp('share link: the hosted page /c/<bot>', (get) => {
  async function sharedBot(settings: Record<string, unknown> = {}) {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const widget = await widgetBot(t, tenant, { share_link_enabled: true, enabled: false, ...settings });
    return { t, tenant, ...widget };
  }

  it('serves the page with the widget full screen under a strict policy while the switch is on', async () => {
    const { t, botId, publishableKey } = await sharedBot({ language: 'en' });
    const res = await t.app.inject({ url: `/c/${botId}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(SHARE_PAGE_CSP);
    expect(SHARE_PAGE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(SHARE_PAGE_CSP).toContain("default-src 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain(
      `<script src="/widget/v1.js" data-key="${publishableKey}" data-fullscreen="true" async>`,
    );
    expect(res.body).toContain('<html lang="en">');
    // Exactly one script, from the service itself; no inline code or style.
    expect(res.body.match(/<script/g)).toHaveLength(1);
    expect(res.body).not.toMatch(/<style|\sstyle=|\son\w+=/);
  });

  it('is a 404 in words while the switch is off, for an unknown bot and for a malformed id', async () => {
    const { t, tenant, botId } = await sharedBot();
    const off = await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
      payload: { share_link_enabled: false, enabled: true },
    });
    expect(off.statusCode).toBe(200);
    for (const url of [`/c/${botId}`, '/c/00000000-0000-4000-8000-000000000000', '/c/kein-bot']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe(SHARE_PAGE_CSP);
      expect(res.body).toContain('Diesen Chat gibt es nicht oder er ist ausgeschaltet');
      expect(res.body).toContain('This chat does not exist or has been switched off');
      expect(res.body).not.toContain('data-key');
    }
  });

  it('escapes the bot name in the page title', async () => {
    const { t, botId } = await sharedBot();
    await t.db.query(`UPDATE bots SET name = $2 WHERE id = $1`, [botId, '</title><script>alert(1)</script>']);
    const res = await t.app.inject({ url: `/c/${botId}` });
    expect(res.body).toContain('&lt;/title&gt;&lt;script&gt;');
    expect(res.body.match(/<script/g)).toHaveLength(1);
  });

  it('admits the page’s own origin for its bot while the share link is on, even with the widget off', async () => {
    const { t, tenant, botId, publishableKey } = await sharedBot();
    const session = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: OWN, ...HOST },
      payload: { publishable_key: publishableKey },
    });
    expect(session.statusCode).toBe(201);
    const token = session.json().token as string;
    recordSecret(token);
    const own = { headers: { origin: OWN, ...HOST, authorization: `Bearer ${token}` } };
    const reply = await send(t, own, { text: 'Hallo' });
    expect(reply.statusCode).toBe(200);
    expect(reply.json().reply).toEqual(expect.any(String));
    const transcript = await t.app.inject({ url: '/v1/widget/conversation', headers: own.headers });
    expect(transcript.json().messages).toHaveLength(2);
    // A same-origin GET carries no Origin header: the browser's Sec-Fetch-Site stands for it.
    const sameOrigin = { ...HOST, 'sec-fetch-site': 'same-origin', authorization: `Bearer ${token}` };
    const withoutOrigin = await t.app.inject({ url: '/v1/widget/conversation', headers: sameOrigin });
    expect(withoutOrigin.statusCode).toBe(200);
    expect(withoutOrigin.json().messages).toHaveLength(2);
    const crossSite = await t.app.inject({
      url: '/v1/widget/conversation',
      headers: { ...sameOrigin, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().code).toBe('origin_missing');

    // A website's token is not the page's: without an Origin it is refused.
    await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
      payload: { enabled: true },
    });
    const site = await startSession(t, publishableKey);
    const siteWithoutOrigin = await t.app.inject({
      url: '/v1/widget/conversation',
      headers: { ...HOST, 'sec-fetch-site': 'same-origin', authorization: site.headers.authorization },
    });
    expect(siteWithoutOrigin.statusCode).toBe(403);

    // The token is bound to the page's origin: a website listed for the widget cannot use it.
    const elsewhere = await t.app.inject({
      url: '/v1/widget/conversation',
      headers: { origin: SITE, ...HOST, authorization: `Bearer ${token}` },
    });
    expect(elsewhere.statusCode).toBe(403);

    // Switched off: the same page's calls are refused like a foreign site's.
    await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
      payload: { share_link_enabled: false },
    });
    const refused = await t.app.inject({ url: '/v1/widget/conversation', headers: own.headers });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('origin_not_allowed');
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: OWN, ...HOST },
      payload: { publishable_key: publishableKey },
    });
    expect(again.statusCode).toBe(403);
  });

  it('another site is not the page’s origin: a foreign Origin with the share link on is refused', async () => {
    const { t, publishableKey } = await sharedBot();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: 'https://fremd.example', ...HOST },
      payload: { publishable_key: publishableKey },
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    // The listed site still needs the widget switched on.
    const site = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE, ...HOST },
      payload: { publishable_key: publishableKey },
    });
    expect(site.statusCode).toBe(403);
    expect(site.json().code).toBe('widget_disabled');
  });
});
