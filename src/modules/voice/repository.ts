/** SQL of the voice channel: calls, Gather turns, and what a call reads of its bot and conversation. */
import { queryOne, type Queryable } from '../../db/database.js';

export interface VoiceCallRow {
  call_sid: string;
  tenant_id: string;
  bot_id: string;
  connection_id: string;
  caller: string;
  conversation_id: string | null;
  language: string;
  status: string;
  pending: unknown;
  silent_prompts: number;
  turns: number;
  handoff_reason: string | null;
  duration_seconds: number | null;
  started_at: Date;
  ended_at: Date | null;
}

/** Calls of one caller on one connection within the last hour (the new one not counted). */
export async function countRecentCalls(db: Queryable, connectionId: string, caller: string): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM voice_calls
     WHERE connection_id = $1 AND caller = $2 AND started_at > now() - interval '1 hour' AND status <> 'refused'`,
    [connectionId, caller],
  );
  return row?.n ?? 0;
}

/** Records the call once; a repeated webhook for the same CallSid reads the first record. */
export async function insertCall(
  db: Queryable,
  call: {
    callSid: string;
    tenantId: string;
    botId: string;
    connectionId: string;
    caller: string;
    language: string;
    status: 'in-progress' | 'refused';
  },
): Promise<{ row: VoiceCallRow; created: boolean }> {
  const inserted = await queryOne<VoiceCallRow>(
    db,
    `INSERT INTO voice_calls (call_sid, tenant_id, bot_id, connection_id, caller, language, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (call_sid) DO NOTHING RETURNING *`,
    [call.callSid, call.tenantId, call.botId, call.connectionId, call.caller, call.language, call.status],
  );
  if (inserted) return { row: inserted, created: true };
  return { row: (await findCall(db, call.connectionId, call.callSid))!, created: false };
}

export function findCall(
  db: Queryable,
  connectionId: string,
  callSid: string,
): Promise<VoiceCallRow | undefined> {
  return queryOne<VoiceCallRow>(db, 'SELECT * FROM voice_calls WHERE call_sid = $1 AND connection_id = $2', [
    callSid,
    connectionId,
  ]);
}

export interface CallPatch {
  conversationId?: string;
  language?: string;
  pending?: unknown;
  silentPrompts?: number;
  countTurn?: boolean;
  handoffReason?: string;
}

export async function updateCall(db: Queryable, callSid: string, patch: CallPatch): Promise<void> {
  await db.query(
    `UPDATE voice_calls SET
       conversation_id = coalesce($2::uuid, conversation_id),
       language = coalesce($3, language),
       pending = CASE WHEN $4::boolean THEN $5::jsonb ELSE pending END,
       silent_prompts = coalesce($6, silent_prompts),
       turns = turns + CASE WHEN $7::boolean THEN 1 ELSE 0 END,
       handoff_reason = coalesce($8, handoff_reason)
     WHERE call_sid = $1`,
    [
      callSid,
      patch.conversationId ?? null,
      patch.language ?? null,
      patch.pending !== undefined,
      patch.pending === undefined || patch.pending === null ? null : JSON.stringify(patch.pending),
      patch.silentPrompts ?? null,
      patch.countTurn === true,
      patch.handoffReason ?? null,
    ],
  );
}

/** Twilio's final status and the duration; the first final status wins. */
export async function finishCall(
  db: Queryable,
  connectionId: string,
  callSid: string,
  status: string,
  durationSeconds: number | null,
): Promise<VoiceCallRow | undefined> {
  return queryOne<VoiceCallRow>(
    db,
    `UPDATE voice_calls SET status = $3, duration_seconds = coalesce($4, duration_seconds),
       ended_at = coalesce(ended_at, now())
     WHERE call_sid = $1 AND connection_id = $2 RETURNING *`,
    [callSid, connectionId, status, durationSeconds],
  );
}

/** Claims a Gather turn: true for the first callback of (call, turn), false for a retry. */
export async function claimTurn(db: Queryable, callSid: string, turn: number): Promise<boolean> {
  const row = await queryOne<{ turn: number }>(
    db,
    `INSERT INTO voice_turns (call_sid, turn) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING turn`,
    [callSid, turn],
  );
  return row !== undefined;
}

export async function setTurnAnswer(
  db: Queryable,
  callSid: string,
  turn: number,
  answer: string,
): Promise<void> {
  await db.query('UPDATE voice_turns SET answer = $3 WHERE call_sid = $1 AND turn = $2', [
    callSid,
    turn,
    answer,
  ]);
}

export async function turnAnswer(
  db: Queryable,
  callSid: string,
  turn: number,
): Promise<{ answer: string | null } | undefined> {
  return queryOne<{ answer: string | null }>(
    db,
    'SELECT answer FROM voice_turns WHERE call_sid = $1 AND turn = $2',
    [callSid, turn],
  );
}

/** Whether the bot answers at all now: active, and the tenant's month not used up. */
export async function botAvailability(
  db: Queryable,
  tenantId: string,
  botId: string,
  period: string,
): Promise<{ active: boolean; quota: number | null; used: number; name: string } | undefined> {
  return queryOne(
    db,
    `SELECT b.is_active AS active, b.name,
            coalesce(t.message_quota_override, p.monthly_message_quota) AS quota,
            coalesce((SELECT messages_used FROM usage_counters u WHERE u.tenant_id = t.id AND u.period = $3), 0)::int AS used
     FROM bots b JOIN tenants t ON t.id = b.tenant_id
     LEFT JOIN subscriptions s ON s.tenant_id = t.id
     LEFT JOIN plans p ON p.id = s.plan_id
     WHERE b.tenant_id = $1 AND b.id = $2`,
    [tenantId, botId, period],
  );
}

/** The conversation's status (a turn may have handed it over). */
export async function conversationStatus(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<{ status: string; handover_reason: string | null } | undefined> {
  return queryOne(db, 'SELECT status, handover_reason FROM conversations WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    conversationId,
  ]);
}

/** The caller's last messages, oldest first: the summary a person gets with a hand-over. */
export async function lastCallerMessages(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  limit: number,
): Promise<string[]> {
  const rows = await db.query<{ content: string }>(
    `SELECT content FROM (
       SELECT content, seq FROM messages WHERE tenant_id = $1 AND conversation_id = $2 AND role = 'user'
       ORDER BY seq DESC LIMIT $3) m ORDER BY seq`,
    [tenantId, conversationId, limit],
  );
  return rows.map((r) => r.content);
}
