/**
 * The chat panel, loaded by the loader on first open: a dialog with a message log, the reply
 * streamed as it is written, blocks as buttons or lists, the hand-over notice, a person's
 * replies with their name and their typing, the hours when people answer, the rating after a
 * person closed the conversation, the consent gate and the button that deletes the visitor's
 * conversation. The session lives in session.ts, the calls in transport.ts, the elements in
 * render.ts.
 */
import { ApiError, WidgetApi, newIdempotencyKey, type BotResponse } from './transport.js';
import { TEXTS, pickLanguage, type Language, type Texts } from './i18n.js';
import { PANEL_CSS } from './panel-css.js';
import { CLOSE_ICON, DELETE_ICON, authorOf, el, icon, isHandover, sheet, whenText } from './render.js';
import { eventJson, type SseEvent } from './sse.js';
import { VisitorSession, visitorContext, type StoredSession } from './session.js';
import { browserStorage, createStore } from './storage.js';
import { onLeft, safeAvatar, themeCss } from './theme.js';
import type { Block, MountContext, PanelHandle, Session, TranscriptMessage } from './types.js';

export { isHandover } from './render.js';

const MAX_LENGTH = 10000;
/** Without a byte (events or pings) for this long the events stream counts as dead and reopens. */
const HEARTBEAT_TIMEOUT_MS = 45_000;
/** The visitor's typing is told to the inbox at most this often. */
const TYPING_EVERY_MS = 3000;
/** A person's typing indicator goes away after this long without a new typing event. */
const TYPING_SHOWN_MS = 6000;

export function mount(context: MountContext): PanelHandle {
  const { config, shadow, root, launcher, themeSheet } = context;
  const api = new WidgetApi(config.origin);
  // A preview stores nothing and sends nothing.
  const store = createStore(
    config.preview ? undefined : browserStorage(),
    config.publishableKey,
    config.consentRequired && !config.preview,
  );
  const viewportSheet = sheet('');
  shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet(PANEL_CSS), viewportSheet];
  if (config.fullscreen) root.classList.add('full');

  let language: Language = pickLanguage(null, navigator.languages);
  let t: Texts = TEXTS[language];
  const visitor = new VisitorSession(api, store, config, (bot) => {
    saved = visitor.saved;
    applyBot(bot);
  });
  let saved: StoredSession | undefined = visitor.saved;
  let started = false;
  let busy = false;
  let eventsAbort: AbortController | undefined;
  let eventsRunning = false;
  const seen = new Set<string>();
  /** Texts of bot replies just shown from the message call, not to be shown again from events. */
  const recentReplies: string[] = [];

  // --- elements ---
  const title = el('h2', { id: 'parley-title' });
  const avatar = el('img', { alt: '', hidden: '' });
  const deleteButton = el('button', { type: 'button', class: 'delete' }, icon(DELETE_ICON));
  const closeButton = el('button', { type: 'button', class: 'close' }, icon(CLOSE_ICON));
  const header = el('header', {}, avatar, title, deleteButton, closeButton);
  const log = el('div', { role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', class: 'log' });
  // The reply while it streams: hidden from screen readers, which hear it once, finished, in the log.
  const draft = el('div', { class: 'msg bot draft', 'aria-hidden': 'true', hidden: '' });
  const status = el('div', { role: 'status', class: 'status' });
  // "Anna schreibt …" while a person types a reply.
  const typing = el('p', { class: 'notice typing', 'aria-live': 'polite', hidden: '' });
  // The satisfaction question after a person closed the conversation, the address form outside hours.
  const extra = el('div', { class: 'extra' });
  // Focusable, so that a keyboard can scroll the conversation.
  const body = el('div', { class: 'body', tabindex: '0' }, log, draft, typing, extra, status);
  const inputId = 'parley-input';
  const label = el('label', { for: inputId, class: 'sr' });
  const input = el('textarea', { id: inputId, rows: '1', maxlength: String(MAX_LENGTH) });
  const send = el('button', { type: 'submit' });
  const form = el('form', {}, label, input, send);
  const confirm = el('div', { class: 'confirm', role: 'group', hidden: '' });
  const consent = el('div', { class: 'consent', hidden: '' });
  const panel = el(
    'div',
    { class: 'panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'parley-title', hidden: '' },
    header,
    consent,
    body,
    confirm,
    form,
  );
  panel.id = 'parley-panel';
  launcher.setAttribute('aria-controls', 'parley-panel');
  root.append(panel);

  function applyTexts() {
    launcher.setAttribute('aria-label', t.open);
    title.textContent = saved?.bot?.name || t.title;
    log.setAttribute('aria-label', t.messages);
    label.textContent = t.inputLabel;
    input.placeholder = t.placeholder;
    send.textContent = t.send;
    deleteButton.setAttribute('aria-label', t.deleteConversation);
    deleteButton.title = t.deleteConversation;
    closeButton.setAttribute('aria-label', t.close);
    closeButton.title = t.close;
    panel.setAttribute('lang', language);
  }

  function applyBot(bot: Session['bot'] | undefined) {
    if (!bot) return;
    language = pickLanguage(bot.language, navigator.languages);
    t = TEXTS[language];
    themeSheet.replaceSync(themeCss(bot.theme));
    root.classList.toggle('left', onLeft(bot.theme));
    const src = safeAvatar(bot.theme?.avatar_url);
    if (src) {
      avatar.src = src;
      avatar.hidden = false;
    }
    applyTexts();
  }
  applyTexts();
  applyBot(saved?.bot);

  // --- messages ---
  function scrollToEnd() {
    body.scrollTop = body.scrollHeight;
  }

  function who(message: Pick<TranscriptMessage, 'from' | 'author'>): string {
    return authorOf(message, t, saved?.bot?.name);
  }

  function disableBlocks() {
    for (const button of log.querySelectorAll<HTMLButtonElement>('.blocks button')) button.disabled = true;
  }

  function renderBlocks(blocks: Block[] | undefined, active: boolean): HTMLElement | undefined {
    const block = blocks?.[0];
    if (!block || block.items.length === 0) return undefined;
    const list = el('ul', {
      class: `blocks ${block.type === 'list' ? 'list' : 'buttons'}`,
      'aria-label': block.name || t.choices,
    });
    for (const item of block.items) {
      const button = el('button', { type: 'button' }, item.title);
      if (block.type === 'list' && item.description) button.append(el('small', {}, item.description));
      button.disabled = !active;
      button.addEventListener('click', () => {
        if (busy) return;
        // The title goes along as text, as the service asks.
        void submit({ text: item.title, choice: { block_id: block.id, item_id: item.id } }, item.title);
      });
      list.append(el('li', {}, button));
    }
    return list;
  }

  function addMessage(message: TranscriptMessage, activeBlocks = false) {
    if (message.id) {
      if (seen.has(message.id)) return;
      seen.add(message.id);
    }
    const who_ = el('span', { class: message.from === 'person' ? 'who' : 'who sr' }, `${who(message)}: `);
    // A person's picture next to their name (https only); a picture that does not load goes away.
    const picture = message.from === 'person' ? safeAvatar(message.author?.avatar_url) : undefined;
    if (picture) {
      const img = el('img', { class: 'face', src: picture, alt: '', referrerpolicy: 'no-referrer' });
      img.addEventListener('error', () => img.remove());
      who_.prepend(img);
    }
    const bubble = el('div', { class: `msg ${message.from}` }, who_, message.text);
    const blocks = renderBlocks(message.blocks, activeBlocks);
    const item = el('div', { class: 'item' }, bubble);
    if (blocks) item.append(blocks);
    log.append(item);
    scrollToEnd();
  }

  function notice(text: string, kind: 'info' | 'error' = 'info') {
    status.replaceChildren(
      text ? el('p', { class: kind === 'error' ? 'notice error' : 'notice' }, text) : '',
    );
    scrollToEnd();
  }

  function setHandover(on: boolean) {
    const existing = body.querySelector('.handover');
    if (on && !existing) {
      body.insertBefore(el('p', { class: 'notice handover', role: 'status' }, t.handover), typing);
      offerReplyAddress();
      scrollToEnd();
    } else if (!on && existing) existing.remove();
  }

  // --- a person typing, the visitor typing ---
  let typingTimer: ReturnType<typeof setTimeout> | undefined;
  function showTyping(name: string | null | undefined) {
    typing.textContent = `${name || t.person} ${t.typing}`;
    typing.hidden = false;
    clearTimeout(typingTimer);
    typingTimer = setTimeout(hideTyping, TYPING_SHOWN_MS);
    scrollToEnd();
  }
  function hideTyping() {
    clearTimeout(typingTimer);
    typing.hidden = true;
    typing.textContent = '';
  }
  let lastTyping = 0;
  input.addEventListener('input', () => {
    const now = Date.now();
    if (!saved?.conversation_id || !input.value || now - lastTyping < TYPING_EVERY_MS) return;
    lastTyping = now;
    api.typing().catch(() => undefined);
  });

  // --- outside business hours: when people answer, and an address for their reply ---
  function offerReplyAddress() {
    const availability = saved?.bot?.availability;
    if (!availability || availability.open || extra.querySelector('.offline')) return;
    const at = availability.next_open_at ? whenText(availability.next_open_at, language) : null;
    // Without e-mail on the service's side only the time is told: a person answers here.
    if (availability.reply_by_email === false) {
      const text = at ? t.offlineChat.replace('{when}', at) : t.offlineChatNoTime;
      extra.append(el('p', { class: 'offline notice', role: 'status' }, text));
      return;
    }
    const when = at ? t.offline.replace('{when}', at) : t.offlineNoTime;
    const email = el('input', {
      type: 'email',
      autocomplete: 'email',
      'aria-label': t.emailLabel,
      required: '',
    });
    const save = el('button', { type: 'submit' }, t.emailSend);
    const addressForm = el('form', { class: 'offline' }, el('p', {}, when), email, save);
    addressForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const address = email.value.trim();
      if (!address) return;
      visitor
        .authed(() => api.replyAddress(address))
        .then(() => addressForm.replaceChildren(el('p', { role: 'status' }, t.emailSaved)))
        .catch(() => notice(t.sendFailed, 'error'));
    });
    extra.append(addressForm);
  }

  // --- after a person closed the conversation: how satisfied was the visitor? ---
  function askRating() {
    if (extra.querySelector('.rating')) return;
    const comment = el('textarea', { rows: '2', maxlength: '2000', 'aria-label': t.rateComment });
    const stars = el('div', { class: 'row', role: 'group', 'aria-label': t.rateQuestion });
    const rating = el('form', { class: 'rating' }, el('p', {}, t.rateQuestion), stars, comment);
    for (let value = 1; value <= 5; value++) {
      const star = el('button', { type: 'button', 'aria-label': `${value} / 5` }, '★'.repeat(value));
      star.addEventListener('click', () => {
        const text = comment.value.trim();
        visitor
          .authed(() => api.rate(text ? { rating: value, comment: text } : { rating: value }))
          .then(() => rating.replaceChildren(el('p', { role: 'status' }, t.rateThanks)))
          .catch(() => notice(t.sendFailed, 'error'));
      });
      stars.append(star);
    }
    extra.append(rating);
    scrollToEnd();
  }

  // --- session (session.ts) ---
  function persist(next: StoredSession) {
    visitor.persist(next);
    saved = next;
  }
  const authed = <T>(call: () => Promise<T>): Promise<T> =>
    visitor.authed(call).finally(() => {
      saved = visitor.saved;
    });

  // --- events stream (person messages, status), resumed with Last-Event-ID ---
  function onEvent(event: SseEvent, lastEventId: string | undefined) {
    if (saved && lastEventId && lastEventId !== saved.last_event_id)
      persist({ ...saved, last_event_id: lastEventId });
    if (event.event === 'status') {
      const data = eventJson<{ status?: string; closed_by?: string }>(event);
      setHandover(isHandover(data));
      if (data?.status === 'ended' && data.closed_by === 'person') {
        hideTyping();
        askRating();
      }
    } else if (event.event === 'typing') {
      const data = eventJson<{ from?: string; name?: string | null }>(event);
      if (data?.from === 'person') showTyping(data.name);
    } else if (event.event === 'message') {
      const message = eventJson<TranscriptMessage>(event);
      if (!message || message.from === 'visitor' || typeof message.text !== 'string') return;
      // The reply being streamed may come here first: shown after the reply, if it is another.
      if (busy && message.from === 'bot') {
        held.push(message);
        return;
      }
      showEventMessage(message);
    }
  }

  /** Bot messages from the events stream while a reply streams, looked at when it is done. */
  const held: TranscriptMessage[] = [];
  function showEventMessage(message: TranscriptMessage) {
    if (message.id && seen.has(message.id)) return;
    const recent = message.from === 'bot' ? recentReplies.indexOf(message.text) : -1;
    if (recent !== -1) {
      recentReplies.splice(recent, 1);
      if (message.id) seen.add(message.id);
      return;
    }
    if (message.from === 'person') {
      setHandover(false);
      hideTyping();
    }
    disableBlocks();
    addMessage(message, true);
  }

  /** Bumped when the conversation is deleted: a loop of the old one stops. */
  let generation = 0;
  async function eventsLoop() {
    if (eventsRunning) return;
    eventsRunning = true;
    const mine = generation;
    let delay = 1000;
    while (started && mine === generation) {
      const controller = new AbortController();
      eventsAbort = controller;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const alive = () => {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(), HEARTBEAT_TIMEOUT_MS);
      };
      try {
        alive();
        await authed(() =>
          api.events(saved?.last_event_id, controller.signal, onEvent, () => {
            alive();
            delay = 1000;
          }),
        );
      } catch (error) {
        // 404: no open conversation yet; the loop starts again after the next reply.
        if (error instanceof ApiError && (error.status === 403 || error.status === 404)) break;
      } finally {
        clearTimeout(timer);
      }
      if (!started || mine !== generation) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30_000);
    }
    if (mine === generation) eventsRunning = false;
  }

  // --- start: consent, session, transcript ---
  function greet() {
    const greeting = saved?.bot?.theme?.greeting || saved?.bot?.greeting || t.greeting;
    addMessage({ from: 'bot', text: greeting });
  }

  async function begin() {
    started = true;
    log.setAttribute('aria-live', 'off');
    try {
      const { status: conversationStatus, messages } = await authed(() => api.transcript());
      log.replaceChildren();
      // Once a person has answered, the notice that one will answer is gone.
      setHandover(isHandover({ status: conversationStatus }) && !messages.some((m) => m.from === 'person'));
      if (messages.length === 0) greet();
      const last = messages[messages.length - 1];
      for (const message of messages) addMessage(message, message === last && message.from !== 'visitor');
      // Events exist once there is a conversation: else the loop starts after the first reply.
      if (messages.length > 0) void eventsLoop();
    } catch (error) {
      notice(error instanceof ApiError && error.status === 429 ? error.message : t.unavailable, 'error');
      if (log.childElementCount === 0) greet();
    } finally {
      log.setAttribute('aria-live', 'polite');
    }
  }

  function showConsent() {
    const accept = el('button', { type: 'button' }, t.consentAccept);
    consent.replaceChildren(el('p', {}, t.consent), accept);
    consent.hidden = false;
    body.hidden = true;
    form.hidden = true;
    accept.addEventListener('click', () => {
      store.giveConsent();
      consent.hidden = true;
      body.hidden = false;
      form.hidden = false;
      input.focus();
      void begin();
    });
    accept.focus();
  }

  // --- sending ---
  async function submit(
    message: { text: string; choice?: { block_id: string; item_id: string } },
    shown: string,
  ) {
    if (busy) return;
    busy = true;
    send.disabled = true;
    notice('');
    // A chosen button is disabled below: focus moves to the input, not out of the dialog.
    const fromBlock = shadow.activeElement?.closest('.blocks');
    disableBlocks();
    if (fromBlock) input.focus();
    addMessage({ from: 'visitor', text: shown });
    draft.textContent = '';
    draft.hidden = false;
    const withContext = () => {
      const context = visitorContext();
      return context ? { context } : {};
    };
    // One key per message, kept across its retries: the service stores and answers it once.
    const key = newIdempotencyKey();
    const handlers = {
      delta(text: string) {
        draft.textContent += text;
        scrollToEnd();
      },
    };
    const attempt = () => authed(() => api.send({ ...message, ...withContext() }, handlers, key));
    try {
      let response: BotResponse;
      try {
        response = await attempt();
      } catch (error) {
        // A network failure (a phone changing networks): once more with the same key.
        if (error instanceof ApiError) throw error;
        draft.textContent = '';
        response = await attempt();
      }
      draft.hidden = true;
      draft.textContent = '';
      if (saved && response.conversation_id && response.conversation_id !== saved.conversation_id)
        persist({ ...saved, conversation_id: response.conversation_id });
      const id = response.message_id ?? response.id;
      // Handed over: the message is stored for the people (shown as sent); its echo on the stream is not shown again.
      if (response.message?.id) seen.add(response.message.id);
      if (response.reply) {
        recentReplies.push(response.reply);
        if (recentReplies.length > 5) recentReplies.shift();
        addMessage({ id, from: 'bot', text: response.reply, blocks: response.blocks }, true);
      }
      if (isHandover(response)) setHandover(true);
      if (started) void eventsLoop();
    } catch (error) {
      draft.hidden = true;
      draft.textContent = '';
      if (!message.choice && !input.value) input.value = message.text;
      notice(error instanceof ApiError && error.status === 429 ? error.message : t.sendFailed, 'error');
    } finally {
      busy = false;
      send.disabled = false;
      for (const message of held.splice(0)) showEventMessage(message);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || busy) return;
    input.value = '';
    void submit({ text }, text);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // --- delete my conversation ---
  deleteButton.addEventListener('click', () => {
    const yes = el('button', { type: 'button' }, t.confirmYes);
    const no = el('button', { type: 'button', class: 'secondary' }, t.confirmNo);
    const text = el('p', { id: 'parley-confirm' }, t.confirmDelete);
    confirm.setAttribute('aria-labelledby', 'parley-confirm');
    confirm.replaceChildren(text, el('div', { class: 'row' }, yes, no));
    confirm.hidden = false;
    form.hidden = true;
    const done = () => {
      confirm.hidden = true;
      form.hidden = false;
      deleteButton.focus();
    };
    no.addEventListener('click', done);
    yes.addEventListener('click', async () => {
      try {
        if (saved) await authed(() => api.deleteConversation());
        started = false;
        generation += 1;
        eventsRunning = false;
        eventsAbort?.abort();
        visitor.clear();
        saved = undefined;
        extra.replaceChildren();
        hideTyping();
        seen.clear();
        setHandover(false);
        log.replaceChildren();
        notice(t.deleted);
        done();
        if (config.consentRequired) {
          showConsent();
          return;
        }
        started = true;
        greet();
      } catch {
        notice(t.unavailable, 'error');
        done();
      }
    });
    no.focus();
  });

  // --- dialog: focus trap, Esc, close ---
  function focusables(): HTMLElement[] {
    return [...panel.querySelectorAll<HTMLElement>('button, textarea, a[href], input, [tabindex]')].filter(
      (node) =>
        !(node as HTMLButtonElement).disabled &&
        node.getAttribute('tabindex') !== '-1' &&
        node.getClientRects().length > 0,
    );
  }

  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      if (!confirm.hidden) {
        (confirm.querySelector('button.secondary') as HTMLButtonElement | null)?.click();
        return;
      }
      if (!config.fullscreen) handle.close();
      return;
    }
    if (event.key !== 'Tab') return;
    const nodes = focusables();
    if (nodes.length === 0) return;
    const first = nodes[0]!;
    const last = nodes[nodes.length - 1]!;
    const active = shadow.activeElement;
    if (event.shiftKey && (active === first || !panel.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !panel.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  });
  closeButton.addEventListener('click', () => handle.close());

  // --- phones: the panel follows the visual viewport (the on-screen keyboard) ---
  const viewport = window.visualViewport;
  const onViewport = () => {
    if (!viewport || panel.hidden) return;
    viewportSheet.replaceSync(
      `:host{--parley-viewport-height:${Math.round(viewport.height)}px;--parley-viewport-top:${Math.round(viewport.offsetTop)}px}`,
    );
  };
  viewport?.addEventListener('resize', onViewport);
  viewport?.addEventListener('scroll', onViewport);

  const handle: PanelHandle = {
    open() {
      panel.hidden = false;
      launcher.setAttribute('aria-expanded', 'true');
      onViewport();
      if (config.preview) {
        if (started) return;
        started = true;
        saved = { token: '', expires_at: new Date(0).toISOString(), visitor_id: '', bot: config.preview };
        applyBot(config.preview);
        greet();
        input.disabled = true;
        send.disabled = true;
        deleteButton.hidden = true;
        return;
      }
      if (config.consentRequired && !store.consented()) {
        showConsent();
        return;
      }
      input.focus();
      if (!started) void begin();
    },
    close() {
      panel.hidden = true;
      context.onClose();
    },
  };
  return handle;
}
