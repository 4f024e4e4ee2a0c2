-- The response side of each request a turn sent, in order (a live tool loop sends
-- several): a JSON array of objects {finish_reason, usage, estimated_prompt_tokens, ttft,
-- latency} (chat.Response: usage is what the server reported for that request, null when
-- it reported none; ttft and latency in nanoseconds). NULL for a turn saved before this
-- migration (and one saved without a reply): its own columns hold what is known.
--
--   SELECT t.number, r.value ->> 'finish_reason', r.value -> 'usage' ->> 'prompt_tokens'
--   FROM turns t, json_each(t.responses) r WHERE t.chat_id = ?;
ALTER TABLE turns ADD COLUMN responses TEXT;
