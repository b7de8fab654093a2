import { hoursBody, hoursValues } from './hours-form';
import { canonicalOrigin } from './origins';
import type { WidgetPatch, WidgetSettings } from './queries';

/** A colour as the widget takes it: #rrggbb. */
export const HEX = /^#[0-9a-fA-F]{6}$/;

/** The widget form's values, from the saved settings. */
export function formValues(settings: WidgetSettings) {
  return {
    allowed_origins: settings.allowed_origins,
    verified_only: settings.verified_only,
    language: settings.language,
    daily_message_budget: settings.daily_message_budget,
    primary_color: settings.theme.primary_color ?? '#1c5fd4',
    background_color: settings.theme.background_color ?? '#ffffff',
    text_color: settings.theme.text_color ?? '#1a1b1e',
    position: settings.theme.position ?? 'bottom-right',
    greeting: settings.theme.greeting ?? '',
    avatar_url: settings.theme.avatar_url ?? '',
    ...hoursValues(settings.business_hours, browserTimeZone()),
  };
}

/** The browser's time zone, offered for new business hours. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'Europe/Berlin';
}
export type Values = ReturnType<typeof formValues>;

/** The PATCH body of the form's values. */
export function toBody(values: Values): WidgetPatch {
  return {
    allowed_origins: values.allowed_origins.map((o) => canonicalOrigin(o) ?? o),
    verified_only: values.verified_only,
    language: values.language,
    daily_message_budget: Number(values.daily_message_budget),
    business_hours: hoursBody(values),
    theme: {
      primary_color: values.primary_color,
      background_color: values.background_color,
      text_color: values.text_color,
      position: values.position,
      ...(values.greeting.trim() ? { greeting: values.greeting.trim() } : {}),
      ...(values.avatar_url.trim() ? { avatar_url: values.avatar_url.trim() } : {}),
    },
  };
}
