package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Check verifies the database: SQLite's integrity check, every foreign key, the pieces
// packed decision lists refer to, and the totals each commit maintains (message counts,
// usage sums), so a test (or a user after a crash) can tell that no half-written step is
// visible. It returns nil for a sound database.
func (d *DB) Check(ctx context.Context) error {
	var problems []string
	err := d.read(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, "PRAGMA integrity_check")
		if err != nil {
			return dbErr(ctx, err, "integrity check")
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return dbErr(ctx, err, "integrity check")
			}
			if s != "ok" {
				problems = append(problems, s)
			}
		}
		if err := rows.Err(); err != nil {
			return dbErr(ctx, err, "integrity check")
		}
		rows.Close()

		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&n); err != nil {
			return dbErr(ctx, err, "foreign key check")
		}
		if n > 0 {
			problems = append(problems, fmt.Sprintf("%d foreign key violations", n))
		}

		if err := checkPieces(ctx, q, &problems); err != nil {
			return err
		}

		const total = `CASE WHEN t.rep_prompt IS NOT NULL
			THEN CASE WHEN t.rep_total != 0 THEN t.rep_total ELSE t.rep_prompt + t.rep_completion END
			ELSE CASE WHEN t.est_total != 0 THEN t.est_total ELSE t.est_prompt + t.est_completion END END`
		rows, err = q.QueryContext(ctx, `SELECT c.id FROM chats c WHERE c.message_count != (SELECT count(*) FROM messages m WHERE m.chat_id = c.id)
			OR c.total_tokens != (SELECT coalesce(sum(`+total+`), 0) FROM turns t WHERE t.chat_id = c.id)
			OR c.prompt_tokens != (SELECT coalesce(sum(coalesce(t.rep_prompt, t.est_prompt)), 0) FROM turns t WHERE t.chat_id = c.id)
			ORDER BY c.id`)
		if err != nil {
			return dbErr(ctx, err, "check totals")
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return dbErr(ctx, err, "check totals")
			}
			problems = append(problems, fmt.Sprintf("chat %q: message count or usage totals do not match its rows", id))
		}
		return dbErr(ctx, rows.Err(), "check totals")
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &storeError{msg: "database check: " + strings.Join(problems, "; ")}
	}
	return nil
}

// checkPieces adds to *problems the packed decision lists that are malformed or refer to
// a piece that does not exist.
func checkPieces(ctx context.Context, q querier, problems *[]string) error {
	rows, err := q.QueryContext(ctx, `SELECT t.chat_id, t.id, d.decisions FROM turn_decisions d JOIN turns t ON t.pk = d.turn_pk
		WHERE substr(d.decisions, 1, 1) = char(1) ORDER BY d.turn_pk`)
	if err != nil {
		return dbErr(ctx, err, "check decisions")
	}
	defer rows.Close()
	type ref struct{ chat, turn string }
	used := map[int64]ref{}
	for rows.Next() {
		var r ref
		var packed []byte
		if err := rows.Scan(&r.chat, &r.turn, &packed); err != nil {
			return dbErr(ctx, err, "check decisions")
		}
		err := refs(packed, func(id int64) {
			if _, ok := used[id]; !ok {
				used[id] = r
			}
		})
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("chat %q: turn %q: %v", r.chat, r.turn, err))
		}
	}
	if err := rows.Err(); err != nil {
		return dbErr(ctx, err, "check decisions")
	}
	rows.Close()
	ids := make([]int64, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	got, err := readPieces(ctx, q, ids)
	if err != nil {
		return err
	}
	var missing []string
	for id, r := range used {
		if _, ok := got[id]; !ok {
			missing = append(missing, fmt.Sprintf("chat %q: turn %q: decisions: piece %d not found", r.chat, r.turn, id))
		}
	}
	sort.Strings(missing)
	*problems = append(*problems, missing...)
	return nil
}
