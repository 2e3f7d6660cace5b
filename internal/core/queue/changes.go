package queue

// ChangeKind is what happened to a queue, as the partition reports it in
// queue events (reference §7).
type ChangeKind uint8

// Queue changes.
const (
	// Added: the queue was created (configured or dynamic).
	Added ChangeKind = iota
	// Removed: the queue was deleted.
	Removed
	// MaxChanged: its max changed on a reload (the root's max follows the
	// cluster's size, which the partition reports as nodes change).
	MaxChanged
	// GuaranteedChanged: its guaranteed changed on a reload.
	GuaranteedChanged
	// TypeChanged: it turned from leaf to parent or back on a reload.
	TypeChanged
)

// OnChange installs the function told of every queue created, removed or
// changed from now on (nil: none), synchronously and in order.
func (t *Tree) OnChange(fn func(ChangeKind, *Queue)) { t.changed = fn }

func (t *Tree) note(k ChangeKind, q *Queue) {
	if t.changed != nil {
		t.changed(k, q)
	}
}
