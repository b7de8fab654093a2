-- The team's verdicts on bot replies by time: a figure of the overview numbers.
CREATE INDEX message_reviews_time_idx ON message_reviews (tenant_id, reviewed_at)
  INCLUDE (conversation_id, verdict);
