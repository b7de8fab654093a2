/**
 * The e-mail channel's guard (chat/pipeline/guards.ts): the loop guard with its caps. A sender
 * the bot answered too often from this mailbox (REPLY_CAP_HOUR, REPLY_CAP_DAY) or whose same
 * text it answered a short while ago is not answered again; the reason is the loop guard's word
 * (`hourly_cap`, `daily_cap`, `duplicate_body`), stored with the received mail.
 */
import type { ChannelGuard } from '../../chat/pipeline/guards.js';
import { PASS } from '../../chat/pipeline/guards.js';
import { bodyFingerprint, DUPLICATE_BODY_WINDOW_MS, loopGuard } from '../../email/robots.js';
import * as repo from './repository.js';

export const emailLoopGuard: ChannelGuard = {
  name: 'email_loop',
  async check(ctx, inbound) {
    const mail = inbound.facts?.email;
    // A reply the team asked for, or a chat API call naming the channel: not guarded.
    if (!mail) return PASS;
    const sent = await repo.countAutomatedReplies(ctx.db, mail.mailboxId, mail.sender);
    const recent = await repo.recentlyAnsweredTexts(
      ctx.db,
      mail.mailboxId,
      mail.sender,
      mail.inboundId,
      DUPLICATE_BODY_WINDOW_MS / 1000,
    );
    const fingerprint = bodyFingerprint(mail.strippedText);
    const decision = loopGuard(
      {
        repliesLastHour: sent?.hour ?? 0,
        repliesLastDay: sent?.day ?? 0,
        sameBodyAnsweredRecently: recent.some((r) => bodyFingerprint(r.stripped_text) === fingerprint),
      },
      { perHour: ctx.config.email.replyCapHour, perDay: ctx.config.email.replyCapDay },
    );
    return decision.answer ? PASS : { pass: false, code: 'loop_guarded', reason: decision.reason };
  },
};
