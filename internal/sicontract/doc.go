// Package sicontract pins the Scheduler Interface wire contract. Paddock uses
// the upstream SI Go module (github.com/apache/yunikorn-scheduler-interface)
// as its SI; the tests here compare that module's protobuf descriptor, message
// by message and field by field, with a table written by hand from the SI spec,
// so an SI upgrade that changes the wire is noticed. The deliberate
// differences between the spec text and the module are listed in the tests
// and in docs/compatibility.md.
package sicontract
