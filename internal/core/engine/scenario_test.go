package engine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/resource"
)

// The scenario format: one command per line, '#' starts a comment.
// Multi-line configuration text follows "config <<END" or "reload <<END"
// up to a line "END". The engine's invariants (Verify) are checked after
// every command.
//
//	config <<END ... END            configuration for the next register
//	register [rm]                   register the RM (default rm "rm")
//	reload <<END ... END            UpdateConfig; the result is the last error
//	use RM                          later commands address RM
//	predicate refuse=N1,N2 [when=allocating] ["why"]  the RM's Predicates refuse those nodes
//	                                (when=allocating: only when asked to place an ask now)
//	foreign KEY node=N res...       a foreign allocation occupying a node
//	release-foreign KEY
//	node ID res... [partition=P] [drain]
//	node-update ID res...
//	drain ID | undrain ID | decommission ID
//	app ID queue=Q user=U [groups=a,b] [partition=P]
//	ask APP KEY res... [priority=N] [node=N] [required=N] [placeholder] [group=TG] [age=D]
//	                                (age: created D ago, as the shim's creationTime tag says)
//	ask-update APP KEY res...
//	release APP KEY
//	bind-failed APP KEY             the RM could not bind an allocation
//	                                (SCHEDULING_FAILED_ON_RM): back to pending
//	remove-app APP
//	confirm APP PLACEHOLDER         RM confirms a placeholder's replacement
//	preempt-check [refuse=N1,N2] [more=K]  the RM's PreemptionPredicates:
//	                                refuses plans on the nodes listed, and
//	                                needs K victims beyond the start index
//	  (app options for gangs: ph.vcore=.. ph.memory=.. style=Hard timeout=1m
//	  age=5m: the app was created that long ago, as after a restart)
//	step                            Tick and schedule at the current time
//	advance DURATION                move the clock (no step)
//	expect ok | expect error "text"                  the last command's result
//	expect alloc APP KEY [NODE]     allocated (on NODE)
//	expect pending APP KEY
//	expect count APP allocated|pending N
//	expect state APP STATE
//	expect rejected-app APP "text" | expect rejected-ask KEY "text"
//	expect released APP KEY [TERMINATION] ["message part"]
//	expect queue PATH allocated|pending|preempting|max res...
//	expect node ID allocated res...
//	expect nodes-allocated N        number of allocations made so far
//	expect running PATH N           running applications of a queue
//	expect why APP KEY KIND [OBJECT]  the typed reason an ask is pending
//	expect short APP KEY RES N      nodes short on resource RES for the ask
//	expect taskgroup APP TG COUNT REPLACED TIMEDOUT
//	expect app-queue APP PATH       the leaf queue placement chose
//	expect event TYPE CHANGE DETAIL OBJECT [REF] ["message part"]
//	                                (numbers as in the SI)
//	expect no-event SPEC            no such event so far
//	expect event-order "SPEC" "SPEC"...  these events, in this order
//	expect event-count N SPEC       exactly N such events
//	clear-events                    forget the events so far
//	expect waiting|not-waiting APP KEY  the autoscaling signal was (not) sent
//	expect request-events KEY N ["message part"]  request events about an ask
//	expect quota-trigger PATH none|due|DURATION  the queue's quota-preemption
//	                                trigger is unset, passed, or at now + DURATION
//	  (app tags: tag.NAME=VALUE)

type scenario struct {
	t   *testing.T
	e   *Engine
	now time.Time
	rm  string
	// unregistered names resources before the RM registers
	unregistered *resource.Registry
	config       string
	lastErr      error
	allocs       map[string]string // app/key -> node
	rejApps      map[string]string
	rejAsks      map[string]string
	release      map[string]partition.Termination
	relMsg       map[string]string
	events       []event.Record
	waiting      map[string]bool
	line         int
	file         string
}

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			runScenario(t, f)
		})
	}
}

func runScenario(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario{
		t: t, e: New(), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), rm: "rm",
		allocs: map[string]string{}, rejApps: map[string]string{}, rejAsks: map[string]string{},
		release: map[string]partition.Termination{}, relMsg: map[string]string{}, file: file, waiting: map[string]bool{},
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		s.line++
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line, "\"") {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var heredoc string
		if i := strings.Index(line, "<<"); i >= 0 {
			end := strings.TrimSpace(line[i+2:])
			line = strings.TrimSpace(line[:i])
			var b strings.Builder
			for sc.Scan() {
				s.line++
				if strings.TrimSpace(sc.Text()) == end {
					break
				}
				b.WriteString(sc.Text())
				b.WriteByte('\n')
			}
			heredoc = b.String()
		}
		s.do(line, heredoc)
		if err := s.e.Verify(); err != nil {
			s.fail("invariants broken after %q: %v", line, err)
		}
	}
}

// duration is option key of kv as a duration, and whether it is given; a
// value that does not parse fails the scenario.
func (s *scenario) duration(kv map[string]string, key string) (time.Duration, bool) {
	v := kv[key]
	if v == "" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		s.fail("%s: %v", key, err)
	}
	return d, true
}

func (s *scenario) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("%s:%d: %s", s.file, s.line, fmt.Sprintf(format, args...))
}

// fields splits a line into words, keeping "quoted text" together.
func fields(line string) []string {
	var out []string
	for line != "" {
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if line[0] == '"' {
			// a quoted word; \" inside it is a quote
			var b strings.Builder
			i := 1
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				b.WriteByte(line[i])
			}
			out = append(out, b.String())
			line = line[min(i+1, len(line)):]
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			out = append(out, line)
			break
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}

// opts separates key=value options and flags from positional words.
func opts(words []string) (pos []string, kv map[string]string) {
	kv = map[string]string{}
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok {
			kv[k] = v
		} else if strings.HasPrefix(w, "-") || w == "drain" || w == "placeholder" {
			kv[w] = "true"
		} else {
			pos = append(pos, w)
		}
	}
	return pos, kv
}

// resources parses the resource entries of kv (every key that is not a
// known option) into a vector.
func (s *scenario) resources(kv map[string]string) resource.Vector {
	s.t.Helper()
	m := map[string]int64{}
	for k, v := range kv {
		switch k {
		case "partition", "drain", "queue", "user", "groups", "priority", "node", "required", "placeholder", "group", "style", "timeout", "age", "nopreempt", "originator":
			continue
		}
		if strings.HasPrefix(k, "ph.") || strings.HasPrefix(k, "tag.") {
			continue
		}
		n, err := resource.ParseValue(k, strings.TrimPrefix(v, "-"))
		if err != nil {
			s.fail("resource %s=%s: %v", k, v, err)
		}
		if strings.HasPrefix(v, "-") {
			n = -n
		}
		m[k] = n
	}
	var vec resource.Vector // built by hand: bad-input scenarios need negatives
	for k, n := range m {
		i, err := s.reg().Intern(k)
		if err != nil {
			s.fail("resources: %v", err)
		}
		vec[i] = n
	}
	return vec
}

func (s *scenario) part(kv map[string]string) *partition.Partition {
	p, err := s.e.Partition(s.rm, kv["partition"])
	if err != nil {
		s.fail("%v", err)
	}
	return p
}

// target is part for commands: an unknown partition is the command's
// error, not the scenario's.
func (s *scenario) target(kv map[string]string) (*partition.Partition, bool) {
	p, err := s.e.Partition(s.rm, kv["partition"])
	s.lastErr = err
	return p, err == nil
}

func (s *scenario) collect() {
	rm, ok := s.e.RM(s.rm)
	if !ok {
		return
	}
	defer rm.Delivered()
	for _, b := range rm.Outboxes(nil) {
		for _, x := range b.Allocations {
			s.allocs[x.AppID+"/"+x.Key] = x.NodeID
		}
		for _, r := range b.RejectedApps {
			s.rejApps[r.AppID] = r.Reason
		}
		for _, r := range b.RejectedAllocs {
			s.rejAsks[r.ID] = r.Reason
		}
		for _, w := range b.Waiting {
			s.waiting[w.AppID+"/"+w.AllocationKey] = true
		}
		for _, r := range b.Released {
			s.release[r.AppID+"/"+r.AllocationKey] = r.Termination
			s.relMsg[r.AppID+"/"+r.AllocationKey] = r.Message
			delete(s.allocs, r.AppID+"/"+r.AllocationKey)
		}
	}
}

var terminations = map[string]partition.Termination{
	"UNKNOWN": partition.Unknown, "STOPPED_BY_RM": partition.StoppedByRM, "TIMEOUT": partition.Timeout,
	"PREEMPTED_BY_SCHEDULER": partition.PreemptedByScheduler, "PLACEHOLDER_REPLACED": partition.PlaceholderReplaced,
}

func (s *scenario) do(line, heredoc string) {
	s.t.Helper()
	w := fields(line)
	cmd, args := w[0], w[1:]
	pos, kv := opts(args)
	need := func(n int) {
		if len(pos) < n {
			s.fail("%s: want %d arguments, got %d", cmd, n, len(pos))
		}
	}
	defer s.collect()
	switch cmd {
	case "config":
		s.config = heredoc
	case "register":
		if len(pos) > 0 {
			s.rm = pos[0]
		}
		s.lastErr = s.e.RegisterRM(s.rm, "queues", s.config, nil)
		s.e.SetEventSink(s.rm, func(r *event.Record) { s.events = append(s.events, *r) })
	case "clear-events":
		s.events = s.events[:0]
	case "use":
		need(1)
		s.rm = pos[0]
	case "preempt-check":
		refuse := map[string]bool{}
		for _, n := range strings.Split(kv["refuse"], ",") {
			refuse[n] = n != ""
		}
		more, _ := strconv.Atoi(kv["more"])
		s.e.SetPreemptCheck(s.rm, func(x *app.Allocation, nodeID string, victims []string, start int) (bool, int) {
			if refuse[nodeID] || start+more >= len(victims) {
				return false, 0
			}
			return true, start + more
		})
	case "predicate":
		// predicate refuse=N1,N2 "why": the RM's Predicates refuse the
		// nodes listed with the message
		refuse := map[string]bool{}
		for _, n := range strings.Split(kv["refuse"], ",") {
			refuse[n] = n != ""
		}
		why := "refused"
		if len(pos) > 0 {
			why = pos[0]
		}
		// when=allocating refuses only checks made to place the ask now,
		// as the Kubernetes shim's resource check (not those for a
		// reservation or a placeholder's replacement)
		allocating := kv["when"] == "allocating"
		s.e.SetPredicate(s.rm, func(x *app.Allocation, nodeID string, allocate bool) error {
			if refuse[nodeID] && (allocate || !allocating) {
				return errors.New(why)
			}
			return nil
		})
	case "foreign":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.AddForeign(kv["node"], pos[0], node.Foreign{Res: s.resources(kv)}, s.now)
	case "release-foreign":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		if !p.RemoveForeign(pos[0]) {
			s.lastErr = fmt.Errorf("foreign %s: unknown", pos[0])
		} else {
			s.lastErr = nil
		}
	case "reload":
		s.lastErr = s.e.UpdateConfig(s.rm, heredoc, nil, s.now)
	case "node":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.AddNode(pos[0], s.resources(kv), resource.Vector{}, nil, kv["drain"] == "")
	case "node-update":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.UpdateNode(pos[0], s.resources(kv), resource.Vector{})
	case "drain", "undrain":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.SetSchedulable(pos[0], cmd == "undrain")
	case "decommission":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.RemoveNode(pos[0], s.now)
	case "app":
		need(1)
		var groups []string
		if g := kv["groups"]; g != "" {
			groups = strings.Split(g, ",")
		}
		p, ok := s.target(kv)
		if !ok {
			return
		}
		r := partition.AppRequest{ID: pos[0], Queue: kv["queue"], User: kv["user"], Groups: groups, GangStyle: kv["style"], Tags: map[string]string{}}
		for k, v := range kv {
			if name, ok := strings.CutPrefix(k, "tag."); ok {
				r.Tags[name] = v
			}
		}
		ph := map[string]string{}
		for k, v := range kv {
			if name, ok := strings.CutPrefix(k, "ph."); ok {
				ph[name] = v
			}
		}
		r.PlaceholderAsk = s.resources(ph)
		if d, ok := s.duration(kv, "timeout"); ok {
			r.ExecutionTimeout = d
		}
		if d, ok := s.duration(kv, "age"); ok {
			r.Created = s.now.Add(-d)
		}
		s.lastErr = p.AddApp(r, s.now)
	case "ask":
		need(2)
		prio, _ := strconv.Atoi(kv["priority"])
		x := &app.Allocation{Key: pos[1], AppID: pos[0], Res: s.resources(kv), Priority: int32(prio),
			RequiredNode: kv["required"], Placeholder: kv["placeholder"] != "", TaskGroup: kv["group"], NodeID: kv["node"],
			// as the SI edge does for an absent policy, asks may preempt and be
			// preempted unless nopreempt=self|other|both says otherwise
			PreemptSelf:  kv["nopreempt"] != "self" && kv["nopreempt"] != "both",
			PreemptOther: kv["nopreempt"] != "other" && kv["nopreempt"] != "both",
			Originator:   kv["originator"] != ""}
		if d, ok := s.duration(kv, "age"); ok {
			// created that long ago (the shim's creationTime tag: a pod's)
			x.Created = s.now.Add(-d)
		}
		if x.NodeID != "" {
			s.lastErr = s.part(kv).AddAllocation(x, s.now)
		} else {
			s.lastErr = s.part(kv).AddAsk(x, s.now)
		}
	case "ask-update":
		need(2)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.UpdateAsk(pos[0], pos[1], s.resources(kv))
	case "release":
		need(2)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		if !p.Release(pos[0], pos[1], s.now) {
			s.lastErr = fmt.Errorf("release %s/%s: unknown", pos[0], pos[1])
		} else {
			s.lastErr = nil
			delete(s.allocs, pos[0]+"/"+pos[1])
		}
	case "bind-failed":
		need(2)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		_, s.lastErr = p.Requeue(pos[0], pos[1], s.now)
		if s.lastErr == nil {
			delete(s.allocs, pos[0]+"/"+pos[1])
		}
	case "confirm":
		need(2)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		if !p.ConfirmReplacement(pos[0], pos[1], s.now) {
			s.lastErr = fmt.Errorf("confirm %s/%s: unknown", pos[0], pos[1])
		} else {
			s.lastErr = nil
			delete(s.allocs, pos[0]+"/"+pos[1])
		}
	case "remove-app":
		need(1)
		p, ok := s.target(kv)
		if !ok {
			return
		}
		s.lastErr = p.RemoveApp(pos[0], s.now)
	case "step":
		s.e.Step(s.now)
	case "advance":
		need(1)
		d, err := time.ParseDuration(pos[0])
		if err != nil {
			s.fail("advance: %v", err)
		}
		s.now = s.now.Add(d)
	case "expect":
		s.expect(w[1:])
	default:
		s.fail("unknown command %q", cmd)
	}
}

func (s *scenario) expect(w []string) {
	s.t.Helper()
	if len(w) == 0 {
		s.fail("expect what?")
	}
	pos, kv := opts(w[1:])
	switch w[0] {
	case "ok":
		if s.lastErr != nil {
			s.fail("want success, got %v", s.lastErr)
		}
	case "error":
		if s.lastErr == nil {
			s.fail("want an error containing %q, got success", strings.Join(pos, " "))
		}
		if len(pos) > 0 && !strings.Contains(s.lastErr.Error(), pos[0]) {
			s.fail("error %q does not contain %q", s.lastErr, pos[0])
		}
	case "alloc":
		n, ok := s.allocs[pos[0]+"/"+pos[1]]
		if !ok {
			s.fail("%s/%s not allocated", pos[0], pos[1])
		}
		if len(pos) > 2 && n != pos[2] {
			s.fail("%s/%s on %s, want %s", pos[0], pos[1], n, pos[2])
		}
	case "pending":
		a := s.app(pos[0], kv)
		x, ok := a.Allocation(pos[1])
		if !ok || !x.Pending() {
			s.fail("%s/%s is not pending", pos[0], pos[1])
		}
	case "count":
		a := s.app(pos[0], kv)
		want, _ := strconv.Atoi(pos[2])
		got := a.AllocatedCount()
		if pos[1] == "pending" {
			got = a.PendingCount()
		}
		if got != want {
			s.fail("%s %s = %d, want %d", pos[0], pos[1], got, want)
		}
	case "state":
		p := s.part(kv)
		a, ok := p.App(pos[0])
		got := "gone"
		if ok {
			got = a.State.String()
		}
		if got != pos[1] {
			s.fail("app %s state %s, want %s", pos[0], got, pos[1])
		}
	case "rejected-app":
		r, ok := s.rejApps[pos[0]]
		if !ok || (len(pos) > 1 && !strings.Contains(r, pos[1])) {
			s.fail("app %s rejection %q (rejected: %v), want it to contain %q", pos[0], r, ok, pos[1:])
		}
	case "rejected-ask":
		r, ok := s.rejAsks[pos[0]]
		if !ok || (len(pos) > 1 && !strings.Contains(r, pos[1])) {
			s.fail("ask %s rejection %q (rejected: %v), want it to contain %q", pos[0], r, ok, pos[1:])
		}
	case "not-released":
		if term, ok := s.release[pos[0]+"/"+pos[1]]; ok {
			s.fail("%s/%s was released to the RM (termination %d)", pos[0], pos[1], term)
		}
	case "preemptions":
		want, _ := strconv.ParseUint(pos[0], 10, 64)
		if got := s.part(kv).Stats.Preemptions; got != want {
			s.fail("%d preemptions, want %d", got, want)
		}
	case "released":
		term, ok := s.release[pos[0]+"/"+pos[1]]
		if !ok {
			s.fail("%s/%s was not released to the RM", pos[0], pos[1])
		}
		if len(pos) > 2 && term != terminations[pos[2]] {
			s.fail("%s/%s released with %d, want %s", pos[0], pos[1], term, pos[2])
		}
		if msg := s.relMsg[pos[0]+"/"+pos[1]]; len(pos) > 3 && !strings.Contains(msg, pos[3]) {
			s.fail("%s/%s released with message %q, want it to contain %q", pos[0], pos[1], msg, pos[3])
		}
	case "queue":
		q, ok := s.part(kv).Tree().Queue(pos[0])
		if !ok {
			s.fail("queue %s does not exist", pos[0])
		}
		want := s.resources(kv)
		got := q.Allocated
		switch pos[1] {
		case "pending":
			got = q.Pending
		case "preempting":
			got = q.Preempting
		case "max":
			got = q.Max.Limits()
		}
		if got != want {
			s.fail("queue %s %s = %s, want %s", pos[0], pos[1], s.reg().Format(got), s.reg().Format(want))
		}
	case "node":
		n, ok := s.part(kv).Node(pos[0])
		if !ok {
			s.fail("node %s does not exist", pos[0])
		}
		if want := s.resources(kv); n.Allocated != want {
			s.fail("node %s allocated %s, want %s", pos[0], s.reg().Format(n.Allocated), s.reg().Format(want))
		}
	case "no-node":
		if _, ok := s.part(kv).Node(pos[0]); ok {
			s.fail("node %s still exists", pos[0])
		}
	case "allocations":
		want, _ := strconv.Atoi(pos[0])
		if len(s.allocs) != want {
			keys := make([]string, 0, len(s.allocs))
			for k := range s.allocs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			s.fail("%d live allocations %v, want %d", len(s.allocs), keys, want)
		}
	case "running":
		q, ok := s.part(kv).Tree().Queue(pos[0])
		if !ok {
			s.fail("queue %s does not exist", pos[0])
		}
		want, _ := strconv.ParseUint(pos[1], 10, 64)
		if q.RunningApps != want {
			s.fail("queue %s runs %d apps, want %d", pos[0], q.RunningApps, want)
		}
	case "why":
		w, err := s.part(kv).Why(pos[0], pos[1])
		if err != nil {
			s.fail("why: %v", err)
		}
		want := app.Reason{Object: ""}
		if len(pos) > 3 {
			want.Object = pos[3]
		}
		if w.Reason.Kind.String() != pos[2] || w.Reason.Object != want.Object {
			s.fail("%s/%s pending because %s, want %s %s", pos[0], pos[1], w.Reason, pos[2], want.Object)
		}
	case "short":
		w, err := s.part(kv).Why(pos[0], pos[1])
		if err != nil {
			s.fail("why: %v", err)
		}
		want, _ := strconv.Atoi(pos[3])
		if w.ShortOn[pos[2]] != want {
			s.fail("%s/%s: %d nodes short on %s, want %d (%v)", pos[0], pos[1], w.ShortOn[pos[2]], pos[2], want, w.ShortOn)
		}
	case "taskgroup":
		a := s.app(pos[0], kv)
		tg := a.TaskGroups[pos[1]]
		if tg == nil {
			s.fail("app %s has no task group %s", pos[0], pos[1])
		}
		got := fmt.Sprintf("%d %d %d", tg.Count, tg.Replaced, tg.TimedOut)
		if want := strings.Join(pos[2:], " "); got != want {
			s.fail("task group %s/%s: count replaced timedout = %s, want %s", pos[0], pos[1], got, want)
		}
	case "app-queue":
		a := s.app(pos[0], kv)
		if a.QueuePath != pos[1] {
			s.fail("app %s in queue %s, want %s", pos[0], a.QueuePath, pos[1])
		}
	case "event":
		// expect event TYPE CHANGE DETAIL OBJECT [REF] ["message part"]:
		// some event so far
		if s.findEvent(pos, 0) < 0 {
			s.fail("no event %q among the events:\n%s", strings.Join(pos, " "), s.eventList())
		}
	case "no-event":
		if s.findEvent(pos, 0) >= 0 {
			s.fail("unexpected event %q among the events:\n%s", strings.Join(pos, " "), s.eventList())
		}
	case "event-order":
		// expect event-order "SPEC" "SPEC"...: those events, in this order
		from := 0
		for _, spec := range pos {
			i := s.findEvent(fields(spec), from)
			if i < 0 {
				s.fail("no event %q after event %d in order %q; the events:\n%s", spec, from, pos, s.eventList())
			}
			from = i + 1
		}
	case "event-count":
		// expect event-count N SPEC: exactly N such events
		n, _ := strconv.Atoi(pos[0])
		got := 0
		for i := s.findEvent(pos[1:], 0); i >= 0; i = s.findEvent(pos[1:], i+1) {
			got++
		}
		if got != n {
			s.fail("%d events %q, want %d; the events:\n%s", got, strings.Join(pos[1:], " "), n, s.eventList())
		}
	case "request-events":
		// expect request-events KEY N ["message part"]: N request events
		// about ask KEY so far, each message containing the part
		n := 0
		for _, r := range s.events {
			if r.Type != event.Request || r.ObjectID != pos[0] {
				continue
			}
			n++
			if len(pos) > 2 && !strings.Contains(r.Message, pos[2]) {
				s.fail("request event of %s: message %q, want it to contain %q", pos[0], r.Message, pos[2])
			}
		}
		if want, err := strconv.Atoi(pos[1]); err != nil || n != want {
			s.fail("%d request events of %s, want %s", n, pos[0], pos[1])
		}
	case "waiting", "not-waiting":
		if got := s.waiting[pos[0]+"/"+pos[1]]; got != (w[0] == "waiting") {
			s.fail("%s/%s reported waiting for cluster resources: %v", pos[0], pos[1], got)
		}
	case "quota-trigger":
		q, ok := s.part(kv).Tree().Queue(pos[0])
		if !ok {
			s.fail("queue %s does not exist", pos[0])
		}
		if len(pos) < 2 {
			s.fail("expect quota-trigger PATH none|due|DURATION")
		}
		got := q.QuotaPreemption.At
		if pos[1] == "due" {
			if got.IsZero() || got.After(s.now) {
				s.fail("queue %s: quota preemption trigger at %v, want due by %v", pos[0], got, s.now)
			}
			return
		}
		if pos[1] == "none" {
			if !got.IsZero() {
				s.fail("queue %s: quota preemption trigger at now+%v, want none", pos[0], got.Sub(s.now))
			}
			return
		}
		d, err := time.ParseDuration(pos[1])
		if err != nil {
			s.fail("quota-trigger: %v", err)
		}
		if got.IsZero() || !got.Equal(s.now.Add(d)) {
			s.fail("queue %s: quota preemption trigger at %v, want now+%v", pos[0], got, d)
		}
	case "queue-state":
		q, ok := s.part(kv).Tree().Queue(pos[0])
		got := "gone"
		if ok {
			got = q.State.String()
		}
		if got != pos[1] {
			s.fail("queue %s state %s, want %s", pos[0], got, pos[1])
		}
	default:
		s.fail("unknown expectation %q", w[0])
	}
}

func (s *scenario) app(id string, kv map[string]string) *app.App {
	s.t.Helper()
	a, ok := s.part(kv).App(id)
	if !ok {
		s.fail("app %s does not exist", id)
	}
	return a
}

// reg is the registry of the scenario's RM; before it registers, a
// registry of its own (whose names no partition will understand).
func (s *scenario) reg() *resource.Registry {
	if r := s.e.Registry(s.rm); r != nil {
		return r
	}
	if s.unregistered == nil {
		s.unregistered = resource.NewRegistry()
	}
	return s.unregistered
}

// eventSpec prints a record as the scenario's event commands name it.
func eventSpec(r event.Record) string {
	got := fmt.Sprintf("%d %d %d %s", r.Type, r.Change, r.Detail, r.ObjectID)
	if r.ReferenceID != "" {
		got += " " + r.ReferenceID
	}
	return got
}

// findEvent returns the index of the first event from index from that
// matches spec (TYPE CHANGE DETAIL OBJECT [REF] and, when the last word
// has a space or the spec has more words than an event, a message part),
// -1 if none.
func (s *scenario) findEvent(spec []string, from int) int {
	want, msg := spec, ""
	if n := len(spec); n > 4 && (n == 6 || strings.Contains(spec[n-1], " ")) {
		want, msg = spec[:n-1], spec[n-1]
	}
	w := strings.Join(want, " ")
	for i := from; i < len(s.events); i++ {
		r := s.events[i]
		got := eventSpec(r)
		if (got == w || (len(want) == 4 && strings.HasPrefix(got, w+" "))) && strings.Contains(r.Message, msg) {
			return i
		}
	}
	return -1
}

func (s *scenario) eventList() string {
	var b strings.Builder
	for i, r := range s.events {
		fmt.Fprintf(&b, "  %d: %s %q\n", i, eventSpec(r), r.Message)
	}
	return b.String()
}
