import { TEXTS, pickLanguage, type Language, type Texts } from './i18n.js';
import { PANEL_CSS } from './panel-css.js';
import { onLeft, safeAvatar, themeCss } from './theme.js';
import type { Availability, Block, RatingBody, Session, TranscriptMessage } from './types.js';

/**
 * Rendering of the panel: elements, icons, style sheets, what counts as a hand-over, and the
 * panel's view (PanelView).
 */
export const MAX_LENGTH = 10000;
/** A person's typing indicator goes away after this long without a new typing event. */
const TYPING_SHOWN_MS = 6000;

const HANDOVER = new Set([
  'handover',
  'human',
  'person',
  'waiting_for_human',
  'pending_human',
  'handed_over',
]);

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function icon(d: string): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

export const CLOSE_ICON =
  'M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z';
export const DELETE_ICON = 'M9 3h6l1 2h4v2H4V5h4zm-3 6h12l-1 12H7z';

export function sheet(css: string): CSSStyleSheet {
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

/** Who wrote a message, as the visitor reads it: "Anna" for a person with a name. */
export function authorOf(
  message: Pick<TranscriptMessage, 'from' | 'author'>,
  texts: { you: string; person: string; bot: string },
  botName: string | undefined,
): string {
  if (message.from === 'visitor') return texts.you;
  if (message.from === 'person') return message.author?.name || texts.person;
  return botName || texts.bot;
}

/** "Montag, 09:00" in the visitor's language: when a person answers again. */
export function whenText(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language, { weekday: 'long', hour: '2-digit', minute: '2-digit' }).format(
    new Date(iso),
  );
}

/** A choice of a block's item: what the visitor tapped. */
export type Choose = (block: Block, item: Block['items'][number]) => void;

interface ViewHost {
  shadow: ShadowRoot;
  root: HTMLElement;
  launcher: HTMLButtonElement;
  themeSheet: CSSStyleSheet;
}

/**
 * The panel's elements and everything drawn into them: texts and theme, messages with their
 * blocks, the streamed draft, notices, the hand-over notice, a person typing, the reply-address
 * and rating forms, the consent gate, the delete confirmation, the focus trap and the visual
 * viewport. It calls no service: what the visitor does goes to the callbacks it is given.
 */
export class PanelView {
  language: Language;
  t: Texts;
  /** The bot's name, for its messages and the title. */
  botName: string | undefined;
  readonly title = el('h2', { id: 'parley-title' });
  readonly avatar = el('img', { alt: '', hidden: '' });
  readonly deleteButton = el('button', { type: 'button', class: 'delete' }, icon(DELETE_ICON));
  readonly closeButton = el('button', { type: 'button', class: 'close' }, icon(CLOSE_ICON));
  readonly log = el('div', {
    role: 'log',
    'aria-live': 'polite',
    'aria-relevant': 'additions',
    class: 'log',
  });
  /** The reply while it streams: hidden from screen readers, which hear it once, finished, in the log. */
  readonly draft = el('div', { class: 'msg bot draft', 'aria-hidden': 'true', hidden: '' });
  readonly status = el('div', { role: 'status', class: 'status' });
  /** "Anna schreibt …" while a person types a reply. */
  readonly typing = el('p', { class: 'notice typing', 'aria-live': 'polite', hidden: '' });
  /** The satisfaction question after a person closed the conversation, the address form outside hours. */
  readonly extra = el('div', { class: 'extra' });
  /** Focusable, so that a keyboard can scroll the conversation. */
  readonly body = el(
    'div',
    { class: 'body', tabindex: '0' },
    this.log,
    this.draft,
    this.typing,
    this.extra,
    this.status,
  );
  readonly label = el('label', { for: 'parley-input', class: 'sr' });
  readonly input = el('textarea', { id: 'parley-input', rows: '1', maxlength: String(MAX_LENGTH) });
  readonly send = el('button', { type: 'submit' });
  readonly form = el('form', {}, this.label, this.input, this.send);
  readonly confirm = el('div', { class: 'confirm', role: 'group', hidden: '' });
  readonly consent = el('div', { class: 'consent', hidden: '' });
  readonly panel = el(
    'div',
    { class: 'panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'parley-title', hidden: '' },
    el('header', {}, this.avatar, this.title, this.deleteButton, this.closeButton),
    this.consent,
    this.body,
    this.confirm,
    this.form,
  );
  private readonly viewportSheet = sheet('');
  private typingTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: ViewHost,
    private readonly choose: Choose,
  ) {
    this.language = pickLanguage(null, navigator.languages);
    this.t = TEXTS[this.language];
    host.shadow.adoptedStyleSheets = [
      ...host.shadow.adoptedStyleSheets,
      sheet(PANEL_CSS),
      this.viewportSheet,
    ];
    this.panel.id = 'parley-panel';
    host.launcher.setAttribute('aria-controls', 'parley-panel');
    host.root.append(this.panel);
  }

  applyTexts(): void {
    const { t } = this;
    this.host.launcher.setAttribute('aria-label', t.open);
    this.title.textContent = this.botName || t.title;
    this.log.setAttribute('aria-label', t.messages);
    this.label.textContent = t.inputLabel;
    this.input.placeholder = t.placeholder;
    this.send.textContent = t.send;
    this.deleteButton.setAttribute('aria-label', t.deleteConversation);
    this.deleteButton.title = t.deleteConversation;
    this.closeButton.setAttribute('aria-label', t.close);
    this.closeButton.title = t.close;
    this.panel.setAttribute('lang', this.language);
  }

  /** The bot's language, theme and picture. */
  applyBot(bot: Session['bot'] | undefined): void {
    this.botName = bot?.name;
    if (!bot) return;
    this.language = pickLanguage(bot.language, navigator.languages);
    this.t = TEXTS[this.language];
    this.host.themeSheet.replaceSync(themeCss(bot.theme));
    this.host.root.classList.toggle('left', onLeft(bot.theme));
    const src = safeAvatar(bot.theme?.avatar_url);
    if (src) {
      this.avatar.src = src;
      this.avatar.hidden = false;
    }
    this.applyTexts();
  }

  scrollToEnd(): void {
    this.body.scrollTop = this.body.scrollHeight;
  }

  disableBlocks(): void {
    for (const button of this.log.querySelectorAll<HTMLButtonElement>('.blocks button'))
      button.disabled = true;
  }

  private renderBlocks(blocks: Block[] | undefined, active: boolean): HTMLElement | undefined {
    const block = blocks?.[0];
    if (!block || block.items.length === 0) return undefined;
    const list = el('ul', {
      class: `blocks ${block.type === 'list' ? 'list' : 'buttons'}`,
      'aria-label': block.name || this.t.choices,
    });
    for (const item of block.items) {
      const button = el('button', { type: 'button' }, item.title);
      if (block.type === 'list' && item.description) button.append(el('small', {}, item.description));
      button.disabled = !active;
      button.addEventListener('click', () => this.choose(block, item));
      list.append(el('li', {}, button));
    }
    return list;
  }

  /** Appends a message (a person's with their name and picture) and its blocks. */
  addMessage(message: TranscriptMessage, activeBlocks = false): void {
    const who = el(
      'span',
      { class: message.from === 'person' ? 'who' : 'who sr' },
      `${authorOf(message, this.t, this.botName)}: `,
    );
    // A person's picture next to their name (https only); a picture that does not load goes away.
    const picture = message.from === 'person' ? safeAvatar(message.author?.avatar_url) : undefined;
    if (picture) {
      const img = el('img', { class: 'face', src: picture, alt: '', referrerpolicy: 'no-referrer' });
      img.addEventListener('error', () => img.remove());
      who.prepend(img);
    }
    const bubble = el('div', { class: `msg ${message.from}` }, who, message.text);
    const blocks = this.renderBlocks(message.blocks, activeBlocks);
    const item = el('div', { class: 'item' }, bubble);
    if (blocks) item.append(blocks);
    this.log.append(item);
    this.scrollToEnd();
  }

  /** The streamed reply: shown (empty), grown by deltas, hidden again. */
  draftShow(): void {
    this.draft.textContent = '';
    this.draft.hidden = false;
  }
  draftAppend(text: string): void {
    this.draft.textContent += text;
    this.scrollToEnd();
  }
  draftClear(): void {
    this.draft.textContent = '';
  }
  draftHide(): void {
    this.draft.hidden = true;
    this.draft.textContent = '';
  }

  notice(text: string, kind: 'info' | 'error' = 'info'): void {
    this.status.replaceChildren(
      text ? el('p', { class: kind === 'error' ? 'notice error' : 'notice' }, text) : '',
    );
    this.scrollToEnd();
  }

  /** Shows or removes the hand-over notice; true when it was just shown (then scroll to the end). */
  setHandover(on: boolean): boolean {
    const existing = this.body.querySelector('.handover');
    if (on && !existing) {
      this.body.insertBefore(
        el('p', { class: 'notice handover', role: 'status' }, this.t.handover),
        this.typing,
      );
      return true;
    }
    if (!on && existing) existing.remove();
    return false;
  }

  showTyping(name: string | null | undefined): void {
    this.typing.textContent = `${name || this.t.person} ${this.t.typing}`;
    this.typing.hidden = false;
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.hideTyping(), TYPING_SHOWN_MS);
    this.scrollToEnd();
  }

  hideTyping(): void {
    clearTimeout(this.typingTimer);
    this.typing.hidden = true;
    this.typing.textContent = '';
  }

  /**
   * Outside business hours: when people answer, and (when the service can send e-mail) a form
   * for an address for their reply.
   */
  offerReplyAddress(availability: Availability | undefined, save: (address: string) => Promise<void>): void {
    const { t, extra } = this;
    if (!availability || availability.open || extra.querySelector('.offline')) return;
    const at = availability.next_open_at ? whenText(availability.next_open_at, this.language) : null;
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
    const addressForm = el(
      'form',
      { class: 'offline' },
      el('p', {}, when),
      email,
      el('button', { type: 'submit' }, t.emailSend),
    );
    addressForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const address = email.value.trim();
      if (!address) return;
      save(address)
        .then(() => addressForm.replaceChildren(el('p', { role: 'status' }, t.emailSaved)))
        .catch(() => this.notice(t.sendFailed, 'error'));
    });
    extra.append(addressForm);
  }

  /** After a person closed the conversation: how satisfied was the visitor? */
  askRating(rate: (body: RatingBody) => Promise<void>): void {
    const { t, extra } = this;
    if (extra.querySelector('.rating')) return;
    const comment = el('textarea', { rows: '2', maxlength: '2000', 'aria-label': t.rateComment });
    const stars = el('div', { class: 'row', role: 'group', 'aria-label': t.rateQuestion });
    const rating = el('form', { class: 'rating' }, el('p', {}, t.rateQuestion), stars, comment);
    for (let value = 1; value <= 5; value++) {
      const star = el('button', { type: 'button', 'aria-label': `${value} / 5` }, '★'.repeat(value));
      star.addEventListener('click', () => {
        const text = comment.value.trim();
        rate(text ? { rating: value, comment: text } : { rating: value })
          .then(() => rating.replaceChildren(el('p', { role: 'status' }, t.rateThanks)))
          .catch(() => this.notice(t.sendFailed, 'error'));
      });
      stars.append(star);
    }
    extra.append(rating);
    this.scrollToEnd();
  }

  /** The consent gate in place of the conversation until the visitor accepts. */
  showConsent(accepted: () => void): void {
    const accept = el('button', { type: 'button' }, this.t.consentAccept);
    this.consent.replaceChildren(el('p', {}, this.t.consent), accept);
    this.consent.hidden = false;
    this.body.hidden = true;
    this.form.hidden = true;
    accept.addEventListener('click', () => {
      this.consent.hidden = true;
      this.body.hidden = false;
      this.form.hidden = false;
      this.input.focus();
      accepted();
    });
    accept.focus();
  }

  /** Asks before deleting the conversation; `yes` runs on confirmation and ends the question with `done`. */
  confirmDelete(yes: (done: () => void) => Promise<void>): void {
    const { t, confirm } = this;
    const yesButton = el('button', { type: 'button' }, t.confirmYes);
    const no = el('button', { type: 'button', class: 'secondary' }, t.confirmNo);
    confirm.setAttribute('aria-labelledby', 'parley-confirm');
    confirm.replaceChildren(
      el('p', { id: 'parley-confirm' }, t.confirmDelete),
      el('div', { class: 'row' }, yesButton, no),
    );
    confirm.hidden = false;
    this.form.hidden = true;
    const done = () => {
      confirm.hidden = true;
      this.form.hidden = false;
      this.deleteButton.focus();
    };
    no.addEventListener('click', done);
    yesButton.addEventListener('click', () => void yes(done));
    no.focus();
  }

  /** Everything of the conversation drawn so far goes (the conversation was deleted). */
  reset(): void {
    this.botName = undefined;
    this.extra.replaceChildren();
    this.hideTyping();
    this.setHandover(false);
    this.log.replaceChildren();
  }

  /** The dialog's keys: Esc closes (or cancels the confirmation), Tab stays inside. */
  trapFocus(close: () => void, closable: boolean): void {
    const { panel, confirm } = this;
    const shadow = this.host.shadow;
    panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        if (!confirm.hidden) {
          (confirm.querySelector('button.secondary') as HTMLButtonElement | null)?.click();
          return;
        }
        if (closable) close();
        return;
      }
      if (event.key !== 'Tab') return;
      const nodes = [
        ...panel.querySelectorAll<HTMLElement>('button, textarea, a[href], input, [tabindex]'),
      ].filter(
        (node) =>
          !(node as HTMLButtonElement).disabled &&
          node.getAttribute('tabindex') !== '-1' &&
          node.getClientRects().length > 0,
      );
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
    this.closeButton.addEventListener('click', close);
  }

  /** Phones: the panel follows the visual viewport (the on-screen keyboard). */
  followViewport(): () => void {
    const viewport = window.visualViewport;
    const onViewport = () => {
      if (!viewport || this.panel.hidden) return;
      this.viewportSheet.replaceSync(
        `:host{--parley-viewport-height:${Math.round(viewport.height)}px;--parley-viewport-top:${Math.round(viewport.offsetTop)}px}`,
      );
    };
    viewport?.addEventListener('resize', onViewport);
    viewport?.addEventListener('scroll', onViewport);
    return onViewport;
  }
}
