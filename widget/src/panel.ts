/**
 * The chat panel, loaded by the loader on first open: a dialog with a message log, the reply
 * streamed as it is written, blocks as buttons or lists, the hand-over notice, a person's
 * replies with their name and their typing, the hours when people answer, the rating after a
 * person closed the conversation, the consent gate and the button that deletes the visitor's
 * conversation. This file only composes the three parts: the session (session.ts: the visitor's
 * token and what was shown), the transport (transport.ts: the calls, the events stream, sending
 * once) and the rendering (render.ts: PanelView).
 */
import { ApiError, EventsFollower, WidgetApi, sendOnce } from './transport.js';
import { isHandover, PanelView } from './render.js';
import { eventJson, type SseEvent } from './sse.js';
import { ShownMessages, VisitorSession, visitorContext, type StoredSession } from './session.js';
import { browserStorage, createStore } from './storage.js';
import type { MountContext, PanelHandle, TranscriptMessage } from './types.js';

export { isHandover } from './render.js';

/** The visitor's typing is told to the inbox at most this often. */
const TYPING_EVERY_MS = 3000;

export function mount(context: MountContext): PanelHandle {
  const { config } = context;
  const api = new WidgetApi(config.origin);
  // A preview stores nothing and sends nothing.
  const store = createStore(
    config.preview ? undefined : browserStorage(),
    config.publishableKey,
    config.consentRequired && !config.preview,
  );
  const view = new PanelView(context, (block, item) => {
    if (busy) return;
    // The title goes along as text, as the service asks.
    void submit({ text: item.title, choice: { block_id: block.id, item_id: item.id } }, item.title);
  });
  if (config.fullscreen) context.root.classList.add('full');

  const visitor = new VisitorSession(api, store, config, (bot) => {
    saved = visitor.saved;
    view.applyBot(bot);
  });
  let saved: StoredSession | undefined = visitor.saved;
  let started = false;
  let busy = false;
  const shown = new ShownMessages();
  view.applyTexts();
  view.applyBot(saved?.bot);

  function persist(next: StoredSession) {
    visitor.persist(next);
    saved = next;
  }
  const authed = <T>(call: () => Promise<T>): Promise<T> =>
    visitor.authed(call).finally(() => {
      saved = visitor.saved;
    });
  const events = new EventsFollower(
    api,
    authed,
    () => saved?.last_event_id,
    onEvent,
    () => started,
  );

  function addMessage(message: TranscriptMessage, activeBlocks = false) {
    if (shown.show(message.id)) view.addMessage(message, activeBlocks);
  }

  function setHandover(on: boolean) {
    if (!view.setHandover(on)) return;
    view.offerReplyAddress(saved?.bot?.availability, (address) =>
      visitor.authed(() => api.replyAddress(address)),
    );
    view.scrollToEnd();
  }

  let lastTyping = 0;
  view.input.addEventListener('input', () => {
    const now = Date.now();
    if (!saved?.conversation_id || !view.input.value || now - lastTyping < TYPING_EVERY_MS) return;
    lastTyping = now;
    api.typing().catch(() => undefined);
  });

  // --- events stream (person messages, status, typing), resumed with Last-Event-ID ---
  function onEvent(event: SseEvent, lastEventId: string | undefined) {
    if (saved && lastEventId && lastEventId !== saved.last_event_id)
      persist({ ...saved, last_event_id: lastEventId });
    if (event.event === 'status') {
      const data = eventJson<{ status?: string; closed_by?: string }>(event);
      setHandover(isHandover(data));
      if (data?.status === 'ended' && data.closed_by === 'person') {
        view.hideTyping();
        view.askRating((body) => visitor.authed(() => api.rate(body)));
      }
    } else if (event.event === 'typing') {
      const data = eventJson<{ from?: string; name?: string | null }>(event);
      if (data?.from === 'person') view.showTyping(data.name);
    } else if (event.event === 'message') {
      const message = eventJson<TranscriptMessage>(event);
      if (!message || message.from === 'visitor' || typeof message.text !== 'string') return;
      // The reply being streamed may come here first: shown after the reply, if it is another.
      if (busy && message.from === 'bot') {
        shown.held.push(message);
        return;
      }
      showEventMessage(message);
    }
  }

  function showEventMessage(message: TranscriptMessage) {
    if (shown.has(message.id) || shown.isEcho(message)) return;
    if (message.from === 'person') {
      setHandover(false);
      view.hideTyping();
    }
    view.disableBlocks();
    addMessage(message, true);
  }

  // --- start: consent, session, transcript ---
  function greet() {
    const greeting = saved?.bot?.theme?.greeting || saved?.bot?.greeting || view.t.greeting;
    addMessage({ from: 'bot', text: greeting });
  }

  async function begin() {
    started = true;
    view.log.setAttribute('aria-live', 'off');
    try {
      const { status: conversationStatus, messages } = await authed(() => api.transcript());
      view.log.replaceChildren();
      // Once a person has answered, the notice that one will answer is gone.
      setHandover(isHandover({ status: conversationStatus }) && !messages.some((m) => m.from === 'person'));
      if (messages.length === 0) greet();
      const last = messages[messages.length - 1];
      for (const message of messages) addMessage(message, message === last && message.from !== 'visitor');
      // Events exist once there is a conversation: else the loop starts after the first reply.
      if (messages.length > 0) void events.start();
    } catch (error) {
      view.notice(
        error instanceof ApiError && error.status === 429 ? error.message : view.t.unavailable,
        'error',
      );
      if (view.log.childElementCount === 0) greet();
    } finally {
      view.log.setAttribute('aria-live', 'polite');
    }
  }

  function showConsent() {
    view.showConsent(() => {
      store.giveConsent();
      void begin();
    });
  }

  // --- sending ---
  async function submit(
    message: { text: string; choice?: { block_id: string; item_id: string } },
    text: string,
  ) {
    if (busy) return;
    busy = true;
    view.send.disabled = true;
    view.notice('');
    // A chosen button is disabled below: focus moves to the input, not out of the dialog.
    const fromBlock = context.shadow.activeElement?.closest('.blocks');
    view.disableBlocks();
    if (fromBlock) view.input.focus();
    addMessage({ from: 'visitor', text });
    view.draftShow();
    const handlers = { delta: (delta: string) => view.draftAppend(delta) };
    try {
      const response = await sendOnce(
        (key) =>
          authed(() => {
            const visitorCtx = visitorContext();
            return api.send({ ...message, ...(visitorCtx ? { context: visitorCtx } : {}) }, handlers, key);
          }),
        () => view.draftClear(),
      );
      view.draftHide();
      if (saved && response.conversation_id && response.conversation_id !== saved.conversation_id)
        persist({ ...saved, conversation_id: response.conversation_id });
      // Handed over: the message is stored for the people (shown as sent); its echo on the stream is not shown again.
      if (response.message?.id) shown.show(response.message.id);
      if (response.reply) {
        shown.replied(response.reply);
        const id = response.message_id ?? response.id;
        addMessage({ id, from: 'bot', text: response.reply, blocks: response.blocks }, true);
      }
      if (isHandover(response)) setHandover(true);
      if (started) void events.start();
    } catch (error) {
      view.draftHide();
      if (!message.choice && !view.input.value) view.input.value = message.text;
      view.notice(
        error instanceof ApiError && error.status === 429 ? error.message : view.t.sendFailed,
        'error',
      );
    } finally {
      busy = false;
      view.send.disabled = false;
      for (const held of shown.held.splice(0)) showEventMessage(held);
    }
  }

  view.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = view.input.value.trim();
    if (!text || busy) return;
    view.input.value = '';
    void submit({ text }, text);
  });
  view.input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      view.form.requestSubmit();
    }
  });

  // --- delete my conversation ---
  view.deleteButton.addEventListener('click', () =>
    view.confirmDelete(async (done) => {
      try {
        if (saved) await authed(() => api.deleteConversation());
        started = false;
        events.stop();
        visitor.clear();
        saved = undefined;
        shown.clear();
        view.reset();
        view.notice(view.t.deleted);
        done();
        if (config.consentRequired) {
          showConsent();
          return;
        }
        started = true;
        greet();
      } catch {
        view.notice(view.t.unavailable, 'error');
        done();
      }
    }),
  );

  // --- dialog: focus trap, Esc, close; phones: the visual viewport ---
  view.trapFocus(() => handle.close(), !config.fullscreen);
  const onViewport = view.followViewport();

  const handle: PanelHandle = {
    open() {
      view.panel.hidden = false;
      context.launcher.setAttribute('aria-expanded', 'true');
      onViewport();
      if (config.preview) {
        if (started) return;
        started = true;
        saved = { token: '', expires_at: new Date(0).toISOString(), visitor_id: '', bot: config.preview };
        view.applyBot(config.preview);
        greet();
        view.input.disabled = true;
        view.send.disabled = true;
        view.deleteButton.hidden = true;
        return;
      }
      if (config.consentRequired && !store.consented()) {
        showConsent();
        return;
      }
      view.input.focus();
      if (!started) void begin();
    },
    close() {
      view.panel.hidden = true;
      context.onClose();
    },
  };
  return handle;
}
