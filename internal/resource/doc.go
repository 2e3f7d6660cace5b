// Package resource owns Paddock's resource model: resource names interned to
// small indexes, quantities as fixed-size int64 vectors with allocation-free
// arithmetic, and the parsing of YuniKorn quantity strings.
package resource
