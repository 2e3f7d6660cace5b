// Package resource owns Paddock's resource model: resource names interned to
// small indexes by a Registry (one per resource manager), quantities as fixed-size int64
// Vectors with allocation-free arithmetic, Quotas (per-type upper bounds where
// an absent type is unlimited and 0 means unavailable), the share and score
// functions queue, application and node sorting are built on, and the parsing
// of YuniKorn quantity strings. It does not know the SI messages; conversion
// to and from them lives in package siconv.
package resource
