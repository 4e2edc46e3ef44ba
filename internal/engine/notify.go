package engine

// Notify receives what the engine says as a run moves on: the operator records each as an
// event of the run (action is the event's action: Load, Measure, Search, Finish, Fail), the
// local mode prints it as a progress note. Warning marks trouble.
type Notify func(warning bool, reason, action, msg string)

func (n Notify) say(warning bool, reason, action, msg string) {
	if n != nil {
		n(warning, reason, action, msg)
	}
}
