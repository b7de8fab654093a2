import type { Usage } from '../../api/types';

/** Full days left until the trial ends (0 on its last day), -1 once it is over, null without one. */
export function trialDaysLeft(trialEndsAt: string | null | undefined, now: Date = new Date()): number | null {
  if (!trialEndsAt) return null;
  const end = new Date(trialEndsAt).getTime();
  if (Number.isNaN(end)) return null;
  const left = end - now.getTime();
  return left <= 0 ? -1 : Math.floor(left / 86_400_000);
}

/** Share of the monthly quota used, 0–100; null for an unlimited plan. */
export function quotaPercent(usage: Pick<Usage, 'messages_used' | 'messages_quota'>): number | null {
  if (usage.messages_quota === null || usage.messages_quota <= 0) return null;
  return Math.min(100, Math.round((usage.messages_used / usage.messages_quota) * 100));
}

/** Where an onboarding step is done: the first bot's knowledge or settings, or the bot list. */
export function onboardingLink(step: string, botId: string | undefined): string {
  if (!botId) return '/bots';
  return step === 'strictness_reviewed' ? `/bots/${botId}` : `/bots/${botId}/knowledge`;
}
