import type { Theme } from './theme.js';

/** What the snippet's script element says. */
export interface WidgetConfig {
  /** Origin of the Parley service (the script's own origin). */
  origin: string;
  publishableKey: string;
  identityToken?: string | undefined;
  consentRequired: boolean;
  /** Open at once, full size (the hosted share page). */
  fullscreen: boolean;
  /**
   * Preview in the dashboard: the panel shows this bot's look and greeting without any request
   * and without storing anything; the input is off.
   */
  preview?: Session['bot'] | undefined;
}

export interface Block {
  id: string;
  type: 'buttons' | 'list';
  name: string;
  items: { id: string; title: string; description?: string | null }[];
}

export interface TranscriptMessage {
  id?: string;
  from: 'visitor' | 'bot' | 'person';
  text: string;
  blocks?: Block[] | undefined;
  created_at?: string;
}

export interface Session {
  token: string;
  expires_at: string;
  visitor_id: string;
  conversation_id?: string | null;
  bot: { name: string; language?: string | null; theme?: Theme | null; greeting?: string | null };
}

/** What the loader hands to the panel chunk. */
export interface MountContext {
  config: WidgetConfig;
  shadow: ShadowRoot;
  root: HTMLElement;
  launcher: HTMLButtonElement;
  /** The sheet holding the theme's custom properties (replaced when the bot's theme is known). */
  themeSheet: CSSStyleSheet;
  /** Called when the panel closed (focus goes back to the launcher). */
  onClose(): void;
}

export interface PanelHandle {
  open(): void;
  close(): void;
}
