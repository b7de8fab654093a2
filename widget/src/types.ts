import type { components, operations } from './api-schema.js';
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

type Schemas = components['schemas'];

/** An interactive block of a bot reply (the OpenAPI document's ChatBlock). */
export type Block = Schemas['ChatBlock'];

/**
 * A message of the transcript or the events stream (the OpenAPI document's
 * WidgetTranscriptMessage); messages the widget draws itself (greeting, the visitor's own before
 * the reply) have no id yet.
 */
export type TranscriptMessage = Omit<Schemas['WidgetTranscriptMessage'], 'id' | 'created_at' | 'blocks'> & {
  id?: string | undefined;
  created_at?: string;
  blocks?: Block[] | undefined;
};

/** Whether people answer now (the bot's business hours). */
export type Availability = NonNullable<Schemas['WidgetSession']['bot']['availability']>;

/** A visitor session (the OpenAPI document's WidgetSession); a stored one may lack newer fields. */
export type Session = Omit<Schemas['WidgetSession'], 'bot' | 'verified'> & {
  verified?: boolean;
  bot: {
    name: string;
    language?: string | null;
    theme?: Theme | null;
    greeting?: string | null;
    availability?: Availability;
  };
};

/** The response of a message (the OpenAPI document's ChatResponse, as far as the widget reads it). */
export type BotResponse = Pick<Schemas['ChatResponse'], 'reply'> &
  Partial<Pick<Schemas['ChatResponse'], 'conversation_id'>> & {
    blocks?: Block[] | undefined;
    message_id?: string;
    id?: string;
    /** 202 while people hold the conversation: the visitor's message as stored for them. */
    status?: string;
    message?: { id: string };
  };

/** The visitor's satisfaction rating (the body of rateWidgetConversation). */
export type RatingBody = NonNullable<
  operations['rateWidgetConversation']['requestBody']
>['content']['application/json'];

/** What the widget tells of the visitor (the body field `context`). */
export type VisitorContext = NonNullable<
  NonNullable<operations['sendWidgetMessage']['requestBody']>['content']['application/json']['context']
>;

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
