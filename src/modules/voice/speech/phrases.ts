/**
 * What the voice says by itself, in the four languages: filler, goodbye, refusals, the
 * read-back of a booking, and the words that confirm or decline. Pure.
 */
import type { VoiceLanguage } from './numbers.js';

export interface VoicePhrases {
  filler: string;
  stillThere: string;
  goodbye: string;
  unavailable: string;
  tooManyCalls: string;
  callTooLong: string;
  closed: string;
  connecting: string;
  notUnderstood: string;
  readBack: (booking: { event: string; date: string; time: string | null; name: string | null }) => string;
  booked: (event: string) => string;
  waitlisted: (event: string) => string;
  bookingRefused: (event: string) => string;
  bookingDropped: string;
  sayChoices: (titles: string[], digits: string[]) => string;
}

/** "A, B oder C" in the language. */
function list(items: string[], or: string): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${or} ${items.at(-1)}`;
}

export const PHRASES: Record<VoiceLanguage, VoicePhrases> = {
  de: {
    filler: 'Einen Moment bitte …',
    stillThere: 'Sind Sie noch da? Wie kann ich Ihnen helfen?',
    goodbye: 'Ich höre Sie leider nicht. Auf Wiederhören!',
    unavailable:
      'Dieser Anschluss ist im Moment nicht erreichbar. Bitte versuchen Sie es später noch einmal.',
    tooManyCalls:
      'Sie haben in der letzten Stunde schon oft angerufen. Bitte versuchen Sie es später noch einmal.',
    callTooLong: 'Unsere Gesprächszeit ist leider um. Vielen Dank für Ihren Anruf, auf Wiederhören!',
    closed:
      'Im Moment ist niemand erreichbar. Wir haben Ihr Anliegen notiert und melden uns so bald wie möglich. Auf Wiederhören!',
    connecting: 'Ich verbinde Sie mit einer Mitarbeiterin oder einem Mitarbeiter.',
    notUnderstood: 'Das habe ich leider nicht verstanden.',
    readBack: ({ event, date, time, name }) =>
      `Ich fasse zusammen: ${event} am ${date}${time ? ` um ${time}` : ''}${name ? ` auf den Namen ${name}` : ''}. ` +
      'Soll ich das so buchen? Sagen Sie ja oder drücken Sie 1.',
    booked: (event) => `Ihre Buchung für ${event} ist bestätigt.`,
    waitlisted: (event) => `${event} ist ausgebucht. Ich habe Sie auf die Warteliste gesetzt.`,
    bookingRefused: (event) => `Die Buchung für ${event} war leider nicht möglich.`,
    bookingDropped: 'Gut, ich buche nichts. Wie kann ich sonst helfen?',
    sayChoices: (titles, digits) =>
      `Sagen Sie ${list(titles, 'oder')} – oder drücken Sie ${list(digits, 'oder')}.`,
  },
  en: {
    filler: 'One moment please …',
    stillThere: 'Are you still there? How can I help you?',
    goodbye: "I'm afraid I can't hear you. Goodbye!",
    unavailable: 'This line is not available at the moment. Please try again later.',
    tooManyCalls: 'You have called several times in the last hour. Please try again later.',
    callTooLong: 'Our time is up, I am afraid. Thank you for calling, goodbye!',
    closed:
      'Nobody is available right now. We have noted your request and will get back to you soon. Goodbye!',
    connecting: 'I am connecting you with a member of our team.',
    notUnderstood: "Sorry, I didn't catch that.",
    readBack: ({ event, date, time, name }) =>
      `To confirm: ${event} on ${date}${time ? ` at ${time}` : ''}${name ? ` for ${name}` : ''}. ` +
      'Shall I book it? Say yes or press 1.',
    booked: (event) => `Your booking for ${event} is confirmed.`,
    waitlisted: (event) => `${event} is fully booked. I have put you on the waiting list.`,
    bookingRefused: (event) => `I'm sorry, the booking for ${event} was not possible.`,
    bookingDropped: 'All right, I have not booked anything. How else can I help?',
    sayChoices: (titles, digits) => `Say ${list(titles, 'or')} – or press ${list(digits, 'or')}.`,
  },
  fr: {
    filler: 'Un instant, s’il vous plaît …',
    stillThere: 'Êtes-vous toujours là ? Comment puis-je vous aider ?',
    goodbye: 'Je ne vous entends pas. Au revoir !',
    unavailable: 'Ce numéro n’est pas disponible pour le moment. Veuillez rappeler plus tard.',
    tooManyCalls: 'Vous avez déjà appelé plusieurs fois cette heure-ci. Veuillez rappeler plus tard.',
    callTooLong: 'Le temps de l’appel est écoulé. Merci de votre appel, au revoir !',
    closed:
      'Personne n’est disponible pour le moment. Nous avons noté votre demande et vous recontacterons rapidement. Au revoir !',
    connecting: 'Je vous mets en relation avec un membre de notre équipe.',
    notUnderstood: 'Je n’ai pas compris.',
    readBack: ({ event, date, time, name }) =>
      `Je récapitule : ${event} le ${date}${time ? ` à ${time}` : ''}${name ? ` au nom de ${name}` : ''}. ` +
      'Dois-je réserver ? Dites oui ou appuyez sur 1.',
    booked: (event) => `Votre réservation pour ${event} est confirmée.`,
    waitlisted: (event) => `${event} est complet. Je vous ai inscrit sur la liste d’attente.`,
    bookingRefused: (event) => `La réservation pour ${event} n’a malheureusement pas été possible.`,
    bookingDropped: 'Très bien, je ne réserve rien. Puis-je vous aider autrement ?',
    sayChoices: (titles, digits) => `Dites ${list(titles, 'ou')} – ou appuyez sur ${list(digits, 'ou')}.`,
  },
  it: {
    filler: 'Un momento, per favore …',
    stillThere: 'È ancora in linea? Come posso aiutarla?',
    goodbye: 'Non la sento. Arrivederci!',
    unavailable: 'Questo numero non è raggiungibile al momento. La preghiamo di riprovare più tardi.',
    tooManyCalls: 'Ha già chiamato più volte nell’ultima ora. La preghiamo di riprovare più tardi.',
    callTooLong: 'Il tempo della chiamata è terminato. Grazie per aver chiamato, arrivederci!',
    closed:
      'Al momento non c’è nessuno disponibile. Abbiamo preso nota della sua richiesta e la ricontatteremo al più presto. Arrivederci!',
    connecting: 'La metto in contatto con un membro del nostro team.',
    notUnderstood: 'Non ho capito.',
    readBack: ({ event, date, time, name }) =>
      `Riepilogo: ${event} il ${date}${time ? ` alle ${time}` : ''}${name ? ` a nome di ${name}` : ''}. ` +
      'Devo prenotare? Dica sì o prema 1.',
    booked: (event) => `La sua prenotazione per ${event} è confermata.`,
    waitlisted: (event) => `${event} è al completo. L’ho inserita nella lista d’attesa.`,
    bookingRefused: (event) => `Purtroppo la prenotazione per ${event} non è stata possibile.`,
    bookingDropped: 'Va bene, non prenoto nulla. Posso aiutarla in altro modo?',
    sayChoices: (titles, digits) => `Dica ${list(titles, 'o')} – oppure prema ${list(digits, 'o')}.`,
  },
};

const YES: Record<VoiceLanguage, readonly string[]> = {
  de: [
    'ja',
    'jawohl',
    'genau',
    'richtig',
    'gerne',
    'gern',
    'ja bitte',
    'bitte buchen',
    'okay',
    'ok',
    'stimmt',
  ],
  en: ['yes', 'yeah', 'yep', 'correct', 'sure', 'please do', 'okay', 'ok', 'right'],
  fr: ['oui', 'ouais', 'exactement', 'd accord', 'c est ça', 'volontiers', 'ok'],
  it: ['si', 'sì', 'certo', 'esatto', 'va bene', 'ok', 'giusto'],
};
const NO: Record<VoiceLanguage, readonly string[]> = {
  de: ['nein', 'nee', 'falsch', 'abbrechen', 'stopp'],
  en: ['no', 'nope', 'cancel', 'wrong', 'stop'],
  fr: ['non', 'annuler'],
  it: ['no', 'annulla', 'sbagliato'],
};

/** Lower case, no accents, no punctuation: how spoken answers are compared. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The caller's answer to a read-back: yes ("ja", "1"), no ("nein", "2") or neither. */
export function confirmation(
  lang: VoiceLanguage,
  answer: { speech?: string | null; digits?: string | null },
): 'yes' | 'no' | null {
  const digits = answer.digits?.trim();
  if (digits === '1') return 'yes';
  if (digits === '2') return 'no';
  const said = fold(answer.speech ?? '');
  if (said === '') return null;
  const words = ` ${said} `;
  const has = (list: readonly string[]) => list.some((w) => words.includes(` ${fold(w)} `));
  if (has(NO[lang])) return 'no';
  if (has(YES[lang]) || said === 'eins' || said === 'one' || said === 'un' || said === 'uno') return 'yes';
  return null;
}
