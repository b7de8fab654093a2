/**
 * Built-in industry vocabulary: the terms a bot of that industry should use. Deployments extend
 * or override it through AssembleOptions.industryVocabularies.
 */
export interface IndustryVocabulary {
  label: string;
  /** Preferred terms, each with a short hint how to use it. */
  terms: string[];
  /** Extra guidance for the industry, e.g. what the bot must not do there. */
  note?: string;
}

export const INDUSTRY_VOCABULARY: Record<string, IndustryVocabulary> = {
  fitness: {
    label: 'Fitness und Sport',
    terms: [
      'Mitgliedschaft (statt „Abo“)',
      'Probetraining',
      'Kursplan',
      'Trainerin oder Trainer',
      'Check-in',
      'Ruhezeit der Mitgliedschaft',
    ],
  },
  gastronomy: {
    label: 'Gastronomie',
    terms: [
      'Reservierung',
      'Speisekarte',
      'Mittagstisch',
      'Allergene und Zusatzstoffe',
      'Abholung (Take-away)',
    ],
  },
  hospitality: {
    label: 'Hotellerie',
    terms: ['Buchung', 'Zimmerkategorie', 'Check-in und Check-out', 'Halbpension', 'Stornobedingungen'],
  },
  healthcare: {
    label: 'Praxis und Gesundheit',
    terms: ['Termin', 'Sprechzeiten', 'Rezept', 'Überweisung', 'gesetzlich oder privat versichert'],
    note: 'Stelle keine Diagnosen und gib keine Behandlungsempfehlungen; verweise dafür an die Praxis.',
  },
  education: {
    label: 'Bildung und Kurse',
    terms: [
      'Kurs',
      'Anmeldung',
      'Lehrkraft',
      'Niveau (z. B. A1 bis C2)',
      'Kursgebühr',
      'Teilnahmebescheinigung',
    ],
  },
  real_estate: {
    label: 'Immobilien',
    terms: ['Objekt', 'Besichtigung', 'Exposé', 'Kaltmiete und Warmmiete', 'Nebenkosten', 'Provision'],
  },
  trades: {
    label: 'Handwerk',
    terms: ['Auftrag', 'Kostenvoranschlag', 'Termin vor Ort', 'Notdienst', 'Material und Arbeitszeit'],
  },
  retail: {
    label: 'Handel',
    terms: ['Bestellung', 'Lieferzeit', 'Rückgabe und Umtausch', 'Filiale', 'Verfügbarkeit'],
  },
};

/** Other names under which tenants set the same industries. */
const ALIASES: Record<string, string> = {
  sport: 'fitness',
  gym: 'fitness',
  yoga: 'fitness',
  gastronomie: 'gastronomy',
  restaurant: 'gastronomy',
  hotel: 'hospitality',
  hotellerie: 'hospitality',
  health: 'healthcare',
  arztpraxis: 'healthcare',
  praxis: 'healthcare',
  bildung: 'education',
  sprachschule: 'education',
  school: 'education',
  immobilien: 'real_estate',
  realestate: 'real_estate',
  handwerk: 'trades',
  handel: 'retail',
  einzelhandel: 'retail',
  ecommerce: 'retail',
};

export function normaliseIndustryCode(code: string): string {
  return code
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

export function findIndustryVocabulary(
  code: string,
  extra: Record<string, IndustryVocabulary> = {},
): IndustryVocabulary | undefined {
  const key = normaliseIndustryCode(code);
  const table = { ...INDUSTRY_VOCABULARY, ...extra };
  return table[key] ?? table[ALIASES[key] ?? ''];
}
