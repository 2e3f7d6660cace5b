// Package usage owns user and group usage tracking and limit enforcement
// for one partition (reference §4, design "User Based Resource Usage
// Tracking"): per user and per selected group, along the full queue path,
// the resources in use and the set of running applications; the user and
// group limits of the queue configuration (named, wildcard user "*" per
// user, wildcard group "*" cumulative); group selection for an
// application; headroom and maxapplications checks; the UG_* events; and
// deep-copied views for REST.
//
// A Manager is not safe for concurrent use. Like the rest of the core it
// is owned by the engine goroutine; other goroutines only ever see the
// values returned by Users, User, Groups and Group, which share nothing
// with the live state.
//
// Trackers exist only while they hold something: a user or group tracker
// is created by the first allocation of one of its applications and is
// removed, with every queue level under it, as soon as its last running
// application is gone. Limits are not copied into trackers; they are looked
// up in the configured limit table when enforced or reported, so a reload
// takes effect on live trackers at once.
package usage
