/*
 * Words for the codes the API answers (channels, models, visitors): the dashboard never shows a
 * code itself. Pure; `t` is i18next's.
 */
type T = (key: string, options?: Record<string, unknown>) => string;

/** A channel's name ("Website", "E-Mail"); an unknown channel is "another channel", not its code. */
export function channelLabel(channel: string | null | undefined, t: T): string {
  if (!channel) return '—';
  return t(`channels.${channel}`, { defaultValue: t('channels.other') });
}

/** Who writes to the bot on a channel: a website visitor, a caller, a sender of e-mail, a customer. */
export function customerLabel(channel: string | null | undefined, t: T): string {
  const key =
    channel === 'widget'
      ? 'visitor'
      : channel === 'voice'
        ? 'caller'
        : channel === 'email'
          ? 'sender'
          : 'customer';
  return t(`people.${key}`);
}

/**
 * A sender id as people read it: a website visitor's generated id ("wv_3f2a…") is "Besucher 3f2a"
 * (its first four characters tell visitors apart without showing the code).
 */
export function senderLabel(sender: string | null | undefined, t: T): string | null {
  if (!sender) return null;
  const visitor = /^wv_([A-Za-z0-9]{0,4})/.exec(sender);
  if (!visitor) return sender;
  return visitor[1] ? t('people.visitorTag', { tag: visitor[1].toLowerCase() }) : t('people.visitor');
}

/** Who a conversation is with: the contact's name or e-mail, else the sender as people read it. */
export function customerName(
  c: { customer_name?: string | null; sender_id: string | null },
  t: T,
): string | null {
  return c.customer_name || senderLabel(c.sender_id, t);
}

const PROVIDERS: Record<string, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  mistral: 'Mistral',
  google: 'Google',
  ollama: 'Ollama',
};
const WORDS: Record<string, string> = { gpt: 'GPT', claude: 'Claude', llama: 'Llama' };

/**
 * A model's name as its maker writes it: "claude-haiku-4-5-20251001" → "Claude Haiku 4.5",
 * "openai:gpt-4o-mini" → "GPT 4o Mini (OpenAI)"; the offline model in words.
 */
export function modelLabel(model: string, t: T): string {
  const trimmed = model.trim();
  if (trimmed === 'offline' || trimmed === 'offline:offline') return t('bot.modelOffline');
  const [provider, name] = trimmed.includes(':') ? trimmed.split(':', 2) : [null, trimmed];
  const parts = (name ?? '')
    .replace(/-\d{8}$/, '')
    .split(/[-_]/)
    .filter(Boolean);
  const words: string[] = [];
  for (const part of parts) {
    const previous = words[words.length - 1];
    // Version numbers written with dashes ("4-5") are "4.5".
    if (/^\d+$/.test(part) && previous && /^\d+(\.\d+)*$/.test(previous))
      words[words.length - 1] = `${previous}.${part}`;
    else words.push(WORDS[part.toLowerCase()] ?? part.charAt(0).toUpperCase() + part.slice(1));
  }
  const label = words.join(' ') || trimmed;
  return provider ? `${label} (${PROVIDERS[provider] ?? provider})` : label;
}
