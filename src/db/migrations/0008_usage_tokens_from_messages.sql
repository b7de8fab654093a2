-- Tokens are summed from the stored messages (each carries its own count); the monthly counter
-- row only holds the quota, so a chat request writes it once instead of twice.
ALTER TABLE usage_counters DROP COLUMN tokens_used;
