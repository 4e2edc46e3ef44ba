package historydb

import (
	"context"
	"fmt"
	"time"
)

// Prune deletes the schedule's runs scheduled before before, with their figures, and says
// how many runs it deleted.
func (s *Store) Prune(ctx context.Context, namespace, schedule string, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, "DELETE FROM history.runs WHERE namespace = $1 AND schedule = $2 AND scheduled_at < $3",
		namespace, schedule, before)
	if err != nil {
		return 0, fmt.Errorf("history store: pruning %s/%s before %s: %w", namespace, schedule, before.Format(time.RFC3339), err)
	}
	return tag.RowsAffected(), nil
}
