// Package configs has the reference core's configuration constants.
package configs

import "github.com/paddock-sched/paddock/scheduler"

// DefaultSchedulerConfig is the queue configuration used when an RM
// registers without one: partition "default", root queue open to all,
// applications placed by their namespace tag.
const DefaultSchedulerConfig = scheduler.DefaultConfig
