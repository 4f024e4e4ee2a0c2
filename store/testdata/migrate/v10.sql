-- A chat as schema version 10 stores it: the rows of version 9, the turn with the digest
-- of the context file it was sent with (migration 0010). Never edit this file: it is what
-- databases made by that version hold, and every later migration must carry it forward.
BEGIN;
INSERT INTO chats (id, title, metadata, active_branch, created_at, updated_at, message_count,
    prompt_tokens, completion_tokens, total_tokens, cached_tokens, reasoning_tokens)
VALUES ('fixture', 'Fixture chat', '{"tier":"pro"}', 'main', '2026-01-01T00:00:00.000000000Z',
    '2026-01-01T00:01:01.000000000Z', 3, 120, 9, 129, 0, 0);
INSERT INTO messages (pk, chat_id, id, parent_id, parent_pk, depth, user_turns, role, parts, locale, reminders, interrupted, created_at,
    turn_id, turn_number, turn_fired) VALUES
    (1, 'fixture', 'u1', NULL, NULL, 0, 1, 'user', '[{"type":"text","text":"hello fixture <system-reminder>be kind</system-reminder>"}]',
        '{"language":"Japanese","timeZone":"Asia/Tokyo"}', '[{"id":"kind","part_index":0,"start":14,"end":55,"mode":"inline"}]', 0,
        '2026-01-01T00:01:00.000000000Z', NULL, NULL, NULL),
    (2, 'fixture', 'a1', 'u1', 1, 1, 1, 'assistant', '[{"type":"text","text":"Hi!"}]', NULL, NULL, 0, '2026-01-01T00:01:01.000000000Z',
        't1', 1, '[{"id":"kind","latches":["kind"]}]'),
    (3, 'fixture', 'u2', NULL, NULL, 0, 1, 'user', '[{"type":"text","text":"hello again"}]', NULL, NULL, 0, '2026-01-01T00:02:00.000000000Z',
        NULL, NULL, NULL);
INSERT INTO branches (chat_id, name, head, parent, created_at) VALUES
    ('fixture', 'main', 'a1', NULL, '2026-01-01T00:00:00.000000000Z'),
    ('fixture', 'main-v2', 'u2', 'main', '2026-01-01T00:02:00.000000000Z');
INSERT INTO checkpoints (chat_id, name, message_id, created_at) VALUES
    ('fixture', 'start', 'u1', '2026-01-01T00:03:00.000000000Z');
INSERT INTO turns (pk, chat_id, id, branch, number, user_message_id, assistant_message_id, at, request, fired,
    rep_prompt, rep_completion, rep_total, rep_cached, rep_reasoning,
    est_prompt, est_completion, est_total, est_cached, est_reasoning, ttft_ns, latency_ns, finish_reason, error, responses, context_digest)
VALUES (1, 'fixture', 't1', 'main', 1, 'u1', 'a1', '2026-01-01T00:01:00.000000000Z',
    '{"model":"scripted","system_prompt":"<role>fixture</role>"}', '[{"id":"kind","latches":["kind"]}]',
    120, 9, 129, 0, 0, 118, 9, 0, 0, 0, 1000000, 2000000, 'stop', '',
    '[{"finish_reason":"stop","usage":{"prompt_tokens":120,"completion_tokens":9,"total_tokens":129},"estimated_prompt_tokens":118,"ttft":1000000,"latency":2000000}]',
    '5d0b8ab61f3f3f1ed4f6c5d1b0fcd9c3a4b0b8f8a9e2e5b5a9f1c0d2e3f4a5b6');
INSERT INTO json_pieces (id, text) VALUES (1, '{"id":"kind","fired":true}');
INSERT INTO turn_decisions (turn_pk, decisions) VALUES (1, char(1) || '[' || char(2) || '1' || char(3) || ']');
COMMIT;
