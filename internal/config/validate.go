package config

import (
	"math"
	"regexp"
	"strings"
)

var (
	queueNameRegexp     = regexp.MustCompile(`^[a-zA-Z0-9_:#/@-]{1,64}$`)
	partitionNameRegexp = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// normaliseAndValidate normalises every partition in place, fills in
// defaults and derived fields, and returns all problems and warnings.
func normaliseAndValidate(c *SchedulerConfig, pres *preemptionPresence) (probs, warnings []Problem) {
	if len(c.Partitions) == 0 {
		return []Problem{{Key: "partitions", Message: "no partitions configured: at least one is required"}}, nil
	}
	seen := map[string]int{}
	for i := range c.Partitions {
		p := &c.Partitions[i]
		if p.Name == "" || strings.EqualFold(p.Name, DefaultPartition) {
			p.Name = DefaultPartition
		}
		ps := &problems{partition: p.Name}
		if !partitionNameRegexp.MatchString(p.Name) {
			ps.add("", "name", "invalid partition name %q: want 1 to 64 characters from a-z A-Z 0-9 _ -", p.Name)
		}
		if j, dup := seen[strings.ToLower(p.Name)]; dup {
			ps.add("", "name", "duplicate partition name %q (names are case-insensitive; also partitions[%d])", p.Name, j)
		} else {
			seen[strings.ToLower(p.Name)] = i
		}
		if !pres.enabledSet(i) {
			p.Preemption.Enabled = true
		}
		validatePartition(ps, p)
		probs = append(probs, ps.list...)
		warnings = append(warnings, ps.warnings...)
	}
	return probs, warnings
}

func validatePartition(ps *problems, p *PartitionConfig) {
	validateNodeSort(ps, &p.NodeSortPolicy)
	p.UserGroupResolver.Type = strings.ToLower(strings.TrimSpace(p.UserGroupResolver.Type))
	switch p.UserGroupResolver.Type {
	case ResolverNone, ResolverOS, ResolverLDAP, ResolverTest:
	default:
		ps.add("", "usergroupresolver.type", "unknown user group resolver %q: want os, ldap, test or empty (none)", p.UserGroupResolver.Type)
	}
	if len(p.Queues) == 0 {
		ps.add("", "queues", "no queues configured: at least the root queue is required")
		validateRules(ps, p.PlacementRules, nil)
		return
	}
	if len(p.Queues) != 1 || !strings.EqualFold(p.Queues[0].Name, RootQueue) {
		p.Queues = []QueueConfig{{Name: RootQueue, Parent: true, Queues: p.Queues}}
	}
	root := &p.Queues[0]
	root.Parent = true
	if len(root.Resources.Guaranteed) > 0 || len(root.Resources.Max) > 0 {
		ps.add(RootQueue, "resources", "the root queue must not set resources: its max is the cluster capacity and it has no guarantee")
	}
	if len(p.Limits) > 0 {
		switch {
		case len(root.Limits) == 0:
			root.Limits = append([]Limit(nil), p.Limits...)
		case !limitsEqual(p.Limits, root.Limits):
			ps.add("", "limits", "partition limits and root queue limits are both set and differ: set them in one place")
		}
	}
	w := walker{ps: ps}
	w.queue(root, parentContext{}, true)
	validateRules(ps, p.PlacementRules, root)
}

func validateNodeSort(ps *problems, n *NodeSortPolicy) {
	n.Type = strings.ToLower(strings.TrimSpace(n.Type))
	switch n.Type {
	case "":
		n.Type = NodeSortFair
	case NodeSortFair, NodeSortBinPacking:
	default:
		ps.add("", "nodesortpolicy.type", "unknown node sort policy %q: want fair or binpacking", n.Type)
	}
	if len(n.ResourceWeights) == 0 {
		n.ResourceWeights = map[string]float64{"vcore": 1, "memory": 1}
		return
	}
	positive := false
	for _, name := range sortedKeys(n.ResourceWeights) {
		w := n.ResourceWeights[name]
		k := "nodesortpolicy.resourceweights." + name
		switch {
		case strings.TrimSpace(name) == "":
			ps.add("", k, "empty resource name")
		case math.IsNaN(w) || math.IsInf(w, 0):
			ps.add("", k, "weight must be a finite number")
		case w < 0:
			ps.add("", k, "negative weight %v is not allowed", w)
		case w > 0:
			positive = true
		}
	}
	if !positive {
		ps.add("", "nodesortpolicy.resourceweights", "at least one weight must be greater than 0")
	}
}

// bound is an effective maximum and the queue that set it.
type bound struct {
	v    int64
	from string
}

// parentContext carries what a queue inherits from its ancestors.
type parentContext struct {
	path     string
	maxBound map[string]bound
	props    map[string]string
	template *ChildTemplate
	users    map[string]limitBound
	groups   map[string]limitBound
}

type walker struct {
	ps *problems
}

// queue normalises and validates q and its subtree.
func (w *walker) queue(q *QueueConfig, pc parentContext, isRoot bool) {
	ps := w.ps
	orig := q.Name
	q.Name = strings.ToLower(q.Name)
	path := q.Name
	if !isRoot {
		path = pc.path + "." + q.Name
	}
	q.Path = path
	if !isRoot {
		switch {
		case !queueNameRegexp.MatchString(orig):
			ps.add(path, "name", "invalid queue name %q: want 1 to 64 characters from a-z A-Z 0-9 _ : # / @ - (no dots)", orig)
		case q.Name == RootQueue:
			ps.add(path, "name", "the name root is reserved for the top of the queue tree")
		case q.Name == RecoveryQueue:
			ps.add(path, "name", "the name @recovery@ is reserved for the scheduler's recovery queue")
		}
	}

	// Resources.
	q.Guaranteed = parseQuantities(ps, path, "resources.guaranteed", q.Resources.Guaranteed)
	q.Max = parseQuantities(ps, path, "resources.max", q.Resources.Max)
	if q.Max.allZero() {
		ps.add(path, "resources.max", "every max value is 0, which would forbid all use of the queue "+
			"(the reference silently treats this as unlimited): remove max for no limit or set a value above 0")
	}
	for _, name := range q.Guaranteed.exceeding(q.Max) {
		ps.add(path, "resources.guaranteed."+name, "guaranteed %s is larger than max %s",
			FormatQuantity(name, q.Guaranteed[name]), FormatQuantity(name, q.Max[name]))
	}
	for _, name := range sortedKeys(q.Max) {
		if b, ok := pc.maxBound[name]; ok && q.Max[name] > b.v {
			ps.add(path, "resources.max."+name, "max %s is larger than the max %s of %s",
				FormatQuantity(name, q.Max[name]), FormatQuantity(name, b.v), b.from)
		}
	}
	for _, name := range sortedKeys(q.Guaranteed) {
		if _, own := q.Max[name]; own {
			continue
		}
		if b, ok := pc.maxBound[name]; ok && q.Guaranteed[name] > b.v {
			ps.add(path, "resources.guaranteed."+name, "guaranteed %s is larger than the max %s of %s",
				FormatQuantity(name, q.Guaranteed[name]), FormatQuantity(name, b.v), b.from)
		}
	}
	maxBound := make(map[string]bound, len(pc.maxBound)+len(q.Max))
	for k, b := range pc.maxBound {
		maxBound[k] = b
	}
	for k, v := range q.Max {
		if b, ok := maxBound[k]; !ok || v <= b.v {
			maxBound[k] = bound{v: v, from: path}
		}
	}

	// ACLs.
	var err error
	if q.Submit, err = ParseACL(q.SubmitACL); err != nil {
		ps.add(path, "submitacl", "%v", err)
	}
	if q.Admin, err = ParseACL(q.AdminACL); err != nil {
		ps.add(path, "adminacl", "%v", err)
	}

	// Properties: validate the queue's own, then type the inherited set.
	parseProperties(ps, path, "properties", q.Properties)
	q.Inherited = InheritProperties(pc.props, q.Properties)
	q.Effective = parseProperties(&problems{}, "", "", q.Inherited)

	// Child template.
	w.template(q)
	if q.ChildTemplate.IsEmpty() {
		q.Template = pc.template
	} else {
		q.Template = &q.ChildTemplate
		if q.IsLeaf() {
			ps.warn(path, "childtemplate", "a child template is ignored on a leaf queue")
		}
	}

	users, groups := w.limits(q, isRoot, pc.users, pc.groups)

	// Children.
	child := parentContext{path: path, maxBound: maxBound, props: q.Inherited, template: q.Template, users: users, groups: groups}
	names := map[string]int{}
	var sumG Quantities
	overBound := map[string]bool{}
	for i := range q.Queues {
		c := &q.Queues[i]
		lower := strings.ToLower(c.Name)
		if j, dup := names[lower]; dup {
			ps.add(path+"."+lower, "name", "duplicate queue name %q under %s (names are case-insensitive; also queues[%d])", c.Name, path, j)
		} else {
			names[lower] = i
		}
		w.queue(c, child, false)
		sumG = addSat(sumG, c.Guaranteed)
		for name, v := range c.Guaranteed {
			if b, ok := maxBound[name]; ok && v > b.v {
				overBound[name] = true
			}
		}
		if q.MaxApplications > 0 && (c.MaxApplications == 0 || c.MaxApplications > q.MaxApplications) {
			ps.add(c.Path, "maxapplications", "must be set between 1 and %d because the parent %s sets maxapplications %d (got %d)",
				q.MaxApplications, path, q.MaxApplications, c.MaxApplications)
		}
	}
	for _, name := range sortedKeys(sumG) {
		sum := sumG[name]
		if g, ok := q.Guaranteed[name]; ok && sum > g {
			ps.add(path, "resources.guaranteed."+name, "the child queues' guaranteed %s add up to %s, more than this queue's guaranteed %s",
				name, FormatQuantity(name, sum), FormatQuantity(name, g))
		}
		if b, ok := maxBound[name]; ok && sum > b.v && !overBound[name] {
			key := "queues"
			if b.from == path {
				key = "resources.max." + name
			}
			ps.add(path, key, "the child queues' guaranteed %s add up to %s, more than the max %s of %s",
				name, FormatQuantity(name, sum), FormatQuantity(name, b.v), b.from)
		}
	}
}

// template validates the queue's child template and fills its parsed forms.
func (w *walker) template(q *QueueConfig) {
	ps, path, t := w.ps, q.Path, &q.ChildTemplate
	g := parseQuantities(ps, path, "childtemplate.resources.guaranteed", t.Resources.Guaranteed)
	m := parseQuantities(ps, path, "childtemplate.resources.max", t.Resources.Max)
	switch {
	case m.allZero():
		ps.add(path, "childtemplate.resources.max", "every max value is 0 (zero values are dropped from templates, "+
			"so this would mean unlimited): remove max for no limit or set a value above 0")
	case len(m.withoutZeros()) != len(m):
		ps.warn(path, "childtemplate.resources.max", "zero values are dropped from templates: dynamic queues get no limit for them")
	}
	for _, name := range g.exceeding(m) {
		ps.add(path, "childtemplate.resources.guaranteed."+name, "guaranteed %s is larger than max %s",
			FormatQuantity(name, g[name]), FormatQuantity(name, m[name]))
	}
	t.Guaranteed, t.Max = g.withoutZeros(), m.withoutZeros()
	t.Effective = parseProperties(ps, path, "childtemplate.properties", t.Properties)
}
