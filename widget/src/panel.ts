/**
 * The chat panel, loaded by the loader on first open: a dialog with a message log, the reply
 * streamed as it is written, blocks as buttons or lists, the hand-over notice, the consent gate
 * and the button that deletes the visitor's conversation.
 */
import { ApiError, WidgetApi, type BotResponse } from './api.js';
import { TEXTS, pickLanguage, type Language, type Texts } from './i18n.js';
import { PANEL_CSS } from './panel-css.js';
import { eventJson, type SseEvent } from './sse.js';
import { browserStorage, createStore, tokenFresh, type Saved } from './storage.js';
import { onLeft, safeAvatar, themeCss } from './theme.js';
import type { Block, MountContext, PanelHandle, Session, TranscriptMessage } from './types.js';

type StoredSession = Saved & { bot?: Session['bot'] };

const MAX_LENGTH = 10000;
/** Without a byte (events or pings) for this long the events stream counts as dead and reopens. */
const HEARTBEAT_TIMEOUT_MS = 45_000;
const HANDOVER = new Set([
  'handover',
  'human',
  'person',
  'waiting_for_human',
  'pending_human',
  'handed_over',
]);

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function icon(d: string): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

const CLOSE_ICON =
  'M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z';
const DELETE_ICON = 'M9 3h6l1 2h4v2H4V5h4zm-3 6h12l-1 12H7z';

function sheet(css: string): CSSStyleSheet {
  const s = new CSSStyleSheet();
  s.replaceSync(css);
  return s;
}

/** Whether a response or a status says the conversation went to people. */
export function isHandover(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  if (v.handover === true) return true;
  if (typeof v.status === 'string' && HANDOVER.has(v.status)) return true;
  if (Array.isArray(v.actions))
    return v.actions.some((a) => a && typeof a === 'object' && (a as { type?: unknown }).type === 'handover');
  return false;
}

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
  let saved: StoredSession | undefined = store.load() as StoredSession | undefined;
  let sessionPromise: Promise<StoredSession> | undefined;
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
  // Focusable, so that a keyboard can scroll the conversation.
  const body = el('div', { class: 'body', tabindex: '0' }, log, draft, status);
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

  function who(from: TranscriptMessage['from']): string {
    return from === 'visitor' ? t.you : from === 'person' ? t.person : saved?.bot?.name || t.bot;
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
    const who_ = el(
      'span',
      { class: message.from === 'person' ? 'who' : 'who sr' },
      `${who(message.from)}: `,
    );
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
      body.insertBefore(el('p', { class: 'notice handover', role: 'status' }, t.handover), status);
      scrollToEnd();
    } else if (!on && existing) existing.remove();
  }

  // --- session ---
  function persist(next: StoredSession) {
    saved = next;
    store.save(next);
  }

  async function newSession(): Promise<StoredSession> {
    const session = await api.startSession(
      {
        publishable_key: config.publishableKey,
        visitor_id: saved?.visitor_id,
        identity_token: config.identityToken,
      },
      saved?.token,
    );
    return adopt(session);
  }

  function adopt(session: Session): StoredSession {
    const next: StoredSession = {
      token: session.token,
      expires_at: session.expires_at,
      visitor_id: session.visitor_id,
      conversation_id: session.conversation_id ?? null,
      last_event_id: saved?.visitor_id === session.visitor_id ? saved?.last_event_id : undefined,
      bot: session.bot,
    };
    persist(next);
    applyBot(session.bot);
    return next;
  }

  /** A session with a token that is still fresh: the stored one, refreshed, or a new one. */
  function session(): Promise<StoredSession> {
    sessionPromise ??= (async () => {
      if (saved && tokenFresh(saved.expires_at, Date.now())) {
        api.token = saved.token;
        return saved;
      }
      if (saved) {
        api.token = saved.token;
        try {
          return adopt(await api.refresh());
        } catch {
          // too old, or the key was rotated: a new session
        }
      }
      return newSession();
    })().finally(() => {
      sessionPromise = undefined;
    });
    return sessionPromise;
  }

  /** Runs a call with a fresh token; after a 401, once more with a new session. */
  async function authed<T>(call: () => Promise<T>): Promise<T> {
    await session();
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      if (saved) persist({ ...saved, expires_at: new Date(0).toISOString() });
      await newSession();
      return call();
    }
  }

  // --- events stream (person messages, status), resumed with Last-Event-ID ---
  function onEvent(event: SseEvent, lastEventId: string | undefined) {
    if (saved && lastEventId && lastEventId !== saved.last_event_id)
      persist({ ...saved, last_event_id: lastEventId });
    if (event.event === 'status') {
      setHandover(isHandover(eventJson(event)));
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
    if (message.from === 'person') setHandover(false);
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
      setHandover(isHandover({ status: conversationStatus }));
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
    try {
      const response: BotResponse = await authed(() =>
        api.send(message, {
          delta(text) {
            draft.textContent += text;
            scrollToEnd();
          },
        }),
      );
      draft.hidden = true;
      draft.textContent = '';
      if (saved && response.conversation_id && response.conversation_id !== saved.conversation_id)
        persist({ ...saved, conversation_id: response.conversation_id });
      const id = response.message_id ?? response.id;
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
        store.clear();
        saved = undefined;
        api.token = undefined;
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
