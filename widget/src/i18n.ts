export type Language = 'de' | 'en';

const de = {
  open: 'Chat öffnen',
  close: 'Chat schließen',
  title: 'Chat',
  messages: 'Nachrichten',
  inputLabel: 'Ihre Nachricht',
  placeholder: 'Nachricht schreiben …',
  send: 'Senden',
  deleteConversation: 'Unterhaltung löschen',
  confirmDelete: 'Unterhaltung und gespeicherte Daten wirklich löschen?',
  confirmYes: 'Ja, löschen',
  confirmNo: 'Abbrechen',
  deleted: 'Die Unterhaltung wurde gelöscht.',
  handover: 'Ein Mensch antwortet gleich',
  sendFailed: 'Die Nachricht konnte nicht gesendet werden. Bitte versuchen Sie es erneut.',
  unavailable: 'Der Chat ist gerade nicht verfügbar. Bitte versuchen Sie es später erneut.',
  reconnecting: 'Verbindung unterbrochen – wird wiederhergestellt …',
  consent:
    'Damit die Unterhaltung erhalten bleibt, speichert dieser Chat eine Kennung in Ihrem Browser. Ihre Nachrichten werden an den Anbieter des Chats übertragen.',
  consentAccept: 'Einverstanden, Chat starten',
  you: 'Sie',
  bot: 'Bot',
  person: 'Mitarbeiter:in',
  typing: 'schreibt …',
  greeting: 'Hallo! Wie kann ich helfen?',
  choices: 'Auswahl',
  offline:
    'Gerade ist niemand da. Ein Mensch antwortet ab {when}. Wir können Ihnen die Antwort auch per E-Mail schicken:',
  offlineNoTime: 'Gerade ist niemand da. Wir können Ihnen die Antwort per E-Mail schicken:',
  offlineChat: 'Gerade ist niemand da. Ein Mensch antwortet ab {when} hier im Chat.',
  offlineChatNoTime: 'Gerade ist niemand da. Ein Mensch antwortet später hier im Chat.',
  emailLabel: 'Ihre E-Mail-Adresse',
  emailSend: 'Antwort per E-Mail',
  emailSaved: 'Danke! Die Antwort kommt auch per E-Mail.',
  rateQuestion: 'Wie zufrieden waren Sie mit der Hilfe?',
  rateComment: 'Möchten Sie etwas dazu sagen? (optional)',
  rateThanks: 'Danke für Ihre Bewertung!',
} as const;

export type Texts = { [K in keyof typeof de]: string };

const en: Texts = {
  open: 'Open chat',
  close: 'Close chat',
  title: 'Chat',
  messages: 'Messages',
  inputLabel: 'Your message',
  placeholder: 'Write a message …',
  send: 'Send',
  deleteConversation: 'Delete conversation',
  confirmDelete: 'Really delete the conversation and the stored data?',
  confirmYes: 'Yes, delete',
  confirmNo: 'Cancel',
  deleted: 'The conversation was deleted.',
  handover: 'A person will answer shortly',
  sendFailed: 'The message could not be sent. Please try again.',
  unavailable: 'The chat is not available right now. Please try again later.',
  reconnecting: 'Connection lost – reconnecting …',
  consent:
    'To keep the conversation, this chat stores an identifier in your browser. Your messages are sent to the provider of the chat.',
  consentAccept: 'Agree and start the chat',
  you: 'You',
  bot: 'Bot',
  person: 'Staff',
  typing: 'is typing …',
  greeting: 'Hello! How can I help?',
  choices: 'Choices',
  offline:
    'Nobody is here right now. A person answers from {when}. We can also send you the answer by e-mail:',
  offlineNoTime: 'Nobody is here right now. We can send you the answer by e-mail:',
  offlineChat: 'Nobody is here right now. A person answers here in the chat from {when}.',
  offlineChatNoTime: 'Nobody is here right now. A person answers here in the chat later.',
  emailLabel: 'Your e-mail address',
  emailSend: 'Answer by e-mail',
  emailSaved: 'Thank you! The answer comes by e-mail too.',
  rateQuestion: 'How satisfied were you with the help?',
  rateComment: 'Anything you would like to add? (optional)',
  rateThanks: 'Thank you for your rating!',
};

export const TEXTS: Record<Language, Texts> = { de, en };

function known(tag: string | null | undefined): Language | undefined {
  const base = (tag ?? '').toLowerCase().split(/[-_]/)[0];
  return base === 'de' || base === 'en' ? base : undefined;
}

/**
 * The widget's language: the bot's language when the widget speaks it, else the first of the
 * browser's languages it speaks, else English.
 */
export function pickLanguage(botLanguage: string | null | undefined, browser: readonly string[]): Language {
  const fromBot = known(botLanguage);
  if (fromBot) return fromBot;
  for (const tag of browser) {
    const language = known(tag);
    if (language) return language;
  }
  return 'en';
}
