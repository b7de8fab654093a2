/**
 * The widget's loader, `/widget/v1.js`: reads the snippet's attributes, adds the launcher in a
 * Shadow DOM and loads the panel chunk the first time the visitor opens the chat. No inline
 * styles, no eval: styles are constructed stylesheets, so a strict Content-Security-Policy holds.
 */
import { TEXTS, pickLanguage } from './i18n.js';
import { LAUNCHER_CSS } from './launcher-css.js';
import type { MountContext, PanelHandle, WidgetConfig } from './types.js';

/** The hashed file name of the panel chunk, set by the build. */
declare const __PANEL_FILE__: string;

const ICON = 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z';

function findScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current instanceof HTMLScriptElement && current.dataset.key) return current;
  return document.querySelector<HTMLScriptElement>('script[data-key][src*="/widget/v1"]');
}

function sheet(css: string): CSSStyleSheet {
  const s = new CSSStyleSheet();
  s.replaceSync(css);
  return s;
}

/** The bot of a preview (`data-preview`: JSON `{name, language, theme}`), or undefined. */
function previewOf(script: HTMLScriptElement): WidgetConfig['preview'] {
  const raw = script.dataset.preview;
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as WidgetConfig['preview'];
    return value && typeof value === 'object' && typeof value.name === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function start(script: HTMLScriptElement) {
  const key = script.dataset.key ?? '';
  if (!/^pk_[A-Za-z0-9_-]+$/.test(key)) {
    console.warn('Parley widget: data-key must be a publishable key (pk_…)');
    return;
  }
  const config: WidgetConfig = {
    origin: new URL(script.src, document.baseURI).origin,
    publishableKey: key,
    identityToken: script.dataset.identity || undefined,
    consentRequired: script.dataset.consent === 'required',
    fullscreen: script.dataset.fullscreen === 'true',
    preview: previewOf(script),
  };
  const host = document.createElement('parley-chat');
  const shadow = host.attachShadow({ mode: 'open' });
  const themeSheet = sheet('');
  shadow.adoptedStyleSheets = [sheet(LAUNCHER_CSS), themeSheet];

  const root = document.createElement('div');
  const position = config.preview?.theme?.position ?? script.dataset.position;
  root.className = position === 'left' || position === 'bottom-left' ? 'root left' : 'root';
  const launcher = document.createElement('button');
  launcher.type = 'button';
  launcher.className = 'launcher';
  launcher.setAttribute('aria-expanded', 'false');
  launcher.setAttribute('aria-haspopup', 'dialog');
  launcher.setAttribute('aria-label', TEXTS[pickLanguage(null, navigator.languages)].open);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICON);
  svg.append(path);
  launcher.append(svg);
  root.append(launcher);
  shadow.append(root);
  document.body.append(host);

  let panel: Promise<PanelHandle> | undefined;
  const context: MountContext = {
    config,
    shadow,
    root,
    launcher,
    themeSheet,
    onClose() {
      launcher.setAttribute('aria-expanded', 'false');
      launcher.focus();
    },
  };
  const open = async () => {
    launcher.setAttribute('aria-expanded', 'true');
    panel ??= import(/* @vite-ignore */ `${config.origin}/widget/${__PANEL_FILE__}`).then(
      (module: { mount(context: MountContext): PanelHandle }) => module.mount(context),
    );
    try {
      (await panel).open();
    } catch (error) {
      panel = undefined;
      launcher.setAttribute('aria-expanded', 'false');
      console.warn('Parley widget: the chat panel could not be loaded', error);
    }
  };
  launcher.addEventListener('click', () => void open());
  if (config.fullscreen || config.preview) void open();
}

const script = findScript();
if (script) {
  if (document.body) start(script);
  else document.addEventListener('DOMContentLoaded', () => start(script), { once: true });
}
