// Package config owns Paddock's queue configuration: the YuniKorn
// queues.yaml schema (partitions, queues, placement rules, limits, node sort
// policy, preemption flags), its strict parsing, normalisation, defaults and
// full static validation, the configuration checksum, queue ACLs and typed
// queue properties.
//
// The package is pure: it reads no files and keeps no state. Parse turns a
// configuration text into a *SchedulerConfig whose queue tree carries both
// the configured values (for serialising back to YAML or JSON) and parsed
// forms the engine consumes directly (quantities as int64 maps, ACLs, typed
// and inherited properties). Every problem in a bad configuration is
// reported at once in a *ValidationError.
package config
