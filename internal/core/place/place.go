// Package place owns application placement: the placement rules of a
// partition (provided, user, fixed, tag, with filters and parent rules),
// compiled once, and the decision of which leaf queue a new application
// goes to and whether that queue must be created (reference §1.9).
package place

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/queue"
)

// Request is what placement knows of a new application.
type Request struct {
	AppID  string
	User   string
	Groups []string
	// Tags are the application's tags; lookups ignore case.
	Tags map[string]string
	// Queue is the queue the RM asked for ("" for none).
	Queue string
	// Forced marks a recovered application (tag application.create.force)
	// that must be placed somewhere: the recovery queue at worst.
	Forced bool
}

// Result is where an application goes.
type Result struct {
	// Queue is the fully qualified, lower-case leaf path.
	Queue string
	// Create is set when the queue (and any missing ancestor) does not exist
	// yet and must be created as a dynamic queue.
	Create bool
	// Rule names the rule that placed it ("recovery" and "default" for the
	// fallbacks).
	Rule string
}

// ErrNoMatch is returned when no rule places an application.
var ErrNoMatch = errors.New("application rejected: no placement rule matched")

// RecoveryPath is the fully qualified recovery queue.
const RecoveryPath = config.RootQueue + "." + config.RecoveryQueue

var queueName = regexp.MustCompile(`^[a-zA-Z0-9_:#/@-]{1,64}$`)

// rule is a compiled placement rule.
type rule struct {
	name   string
	create bool
	value  string
	filter filter
	parent *rule
}

// Rules is a compiled, immutable rule chain.
type Rules struct {
	rules []*rule
	src   []config.PlacementRule
}

// Compile builds the rule chain of a partition. No rules means the
// implicit provided rule without create. Unknown or incomplete rules are
// errors.
func Compile(src []config.PlacementRule) (*Rules, error) {
	if len(src) == 0 {
		src = []config.PlacementRule{{Name: config.RuleProvided}}
	}
	out := &Rules{src: src}
	for i := range src {
		r, err := compile(&src[i], 0)
		if err != nil {
			return nil, fmt.Errorf("placementrules[%d]: %w", i, err)
		}
		out.rules = append(out.rules, r)
	}
	return out, nil
}

func compile(c *config.PlacementRule, depth int) (*rule, error) {
	if depth > 32 {
		return nil, errors.New("parent rules nested too deep")
	}
	r := &rule{name: strings.ToLower(strings.TrimSpace(c.Name)), create: c.Create, value: c.Value}
	switch r.name {
	case config.RuleProvided, config.RuleUser:
	case config.RuleFixed, config.RuleTag:
		if strings.TrimSpace(c.Value) == "" {
			return nil, fmt.Errorf("rule %s needs a value", r.name)
		}
	default:
		return nil, fmt.Errorf("unknown placement rule %q", c.Name)
	}
	f, err := compileFilter(c.Filter)
	if err != nil {
		return nil, err
	}
	r.filter = f
	if c.Parent != nil {
		p, err := compile(c.Parent, depth+1)
		if err != nil {
			return nil, fmt.Errorf("parent: %w", err)
		}
		r.parent = p
	}
	return r, nil
}

// Describe returns the active rules, with the implicit recovery rule last,
// for REST.
func (rs *Rules) Describe() []config.PlacementRule {
	out := append([]config.PlacementRule(nil), rs.src...)
	return append(out, config.PlacementRule{Name: config.RuleRecovery})
}

// Place decides the leaf queue of an application in tree.
func (rs *Rules) Place(req Request, tree *queue.Tree) (Result, error) {
	var why []string
	for _, r := range rs.rules {
		path, err := r.resolve(req, tree)
		if err != nil {
			return Result{}, err
		}
		if path == "" {
			continue
		}
		ok, create, reason := acceptable(path, r.create, req, tree)
		if ok {
			return Result{Queue: path, Create: create, Rule: r.name}, nil
		}
		why = append(why, r.name+": "+reason)
	}
	if req.Forced {
		_, exists := tree.Queue(RecoveryPath)
		return Result{Queue: RecoveryPath, Create: !exists, Rule: config.RuleRecovery}, nil
	}
	def := config.RootQueue + ".default"
	if q, ok := tree.Queue(def); ok && q.Leaf && q.State != queue.Draining && q.CanSubmit(req.User, req.Groups) {
		return Result{Queue: def, Rule: "default"}, nil
	}
	if len(why) == 0 {
		return Result{}, ErrNoMatch
	}
	return Result{}, fmt.Errorf("%w (%s)", ErrNoMatch, strings.Join(why, "; "))
}

// acceptable applies the acceptance rules to a candidate path: an
// existing leaf that is not draining and that the user may submit to, or a
// missing queue the rule may create under an existing parent that grants
// submit access.
func acceptable(path string, create bool, req Request, tree *queue.Tree) (ok, mustCreate bool, why string) {
	if path == RecoveryPath || strings.HasPrefix(path, RecoveryPath+".") {
		return false, false, "the recovery queue is reserved" // only the fallback places there
	}
	if q, exists := tree.Queue(path); exists {
		switch {
		case !q.Leaf:
			return false, false, "queue " + path + " is not a leaf queue"
		case q.State == queue.Draining:
			return false, false, "queue " + path + " is draining"
		case !q.CanSubmit(req.User, req.Groups):
			return false, false, "user " + req.User + " may not submit to queue " + path
		}
		return true, false, ""
	}
	if !create {
		return false, false, "queue " + path + " does not exist and the rule may not create it"
	}
	anc := lowestExisting(path, tree)
	switch {
	case anc == nil:
		return false, false, "no parent for " + path
	case anc.Leaf:
		return false, false, "cannot create " + path + " under leaf queue " + anc.Path
	case anc.State == queue.Draining:
		return false, false, "cannot create " + path + " under draining queue " + anc.Path
	case !anc.CanSubmit(req.User, req.Groups):
		return false, false, "user " + req.User + " may not create queues under " + anc.Path
	}
	return true, true, ""
}

func lowestExisting(path string, tree *queue.Tree) *queue.Queue {
	for p := path; ; {
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return nil
		}
		p = p[:i]
		if q, ok := tree.Queue(p); ok {
			return q
		}
	}
}

// resolve computes the rule's candidate path, "" when the rule does not
// apply (filtered out, tag missing, invalid name). An error aborts
// placement (a parent rule naming an existing leaf, a tag value that is no
// valid queue name).
func (r *rule) resolve(req Request, tree *queue.Tree) (string, error) {
	if !r.filter.allows(req.User, req.Groups) {
		return "", nil
	}
	var name string
	switch r.name {
	case config.RuleProvided:
		name = req.Queue
	case config.RuleUser:
		name = strings.ReplaceAll(req.User, ".", "_dot_")
	case config.RuleFixed:
		name = r.value
	case config.RuleTag:
		name = tag(req.Tags, r.value)
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return "", nil
	}
	qualified := name == config.RootQueue || strings.HasPrefix(name, config.RootQueue+".")
	if r.name == config.RuleTag && !qualified {
		name = strings.ReplaceAll(name, ".", "_dot_") // one queue, not a nesting
	}
	var path string
	switch {
	case qualified:
		path = name // a fully qualified result ignores the parent rule
	case r.parent != nil:
		parent, err := r.parent.resolve(req, tree)
		if err != nil || parent == "" {
			return "", err
		}
		q, ok := tree.Queue(parent)
		if ok && q.Leaf {
			return "", fmt.Errorf("application %s: parent rule %s resolved to leaf queue %s", req.AppID, r.parent.name, parent)
		}
		if !ok && !r.parent.create {
			// as in the reference, a parent rule that may not create its
			// queue matches only an existing one: a namespace annotated
			// with a parent the configuration does not have falls to the
			// next rule instead of escaping into an unlimited new parent
			return "", nil
		}
		path = parent + "." + name
	default:
		path = config.RootQueue + "." + name
	}
	if !validPath(path) {
		if r.name == config.RuleTag {
			// as in the reference, a tag naming no valid queue rejects
			return "", fmt.Errorf("application %s: tag %s: invalid queue name %s", req.AppID, r.value, path)
		}
		return "", nil
	}
	return path, nil
}

func validPath(path string) bool {
	parts := strings.Split(path, ".")
	if parts[0] != config.RootQueue {
		return false
	}
	for _, p := range parts[1:] {
		if !queueName.MatchString(p) {
			return false
		}
	}
	return true
}

func tag(tags map[string]string, name string) string {
	if v, ok := tags[name]; ok {
		return v
	}
	for k, v := range tags {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
