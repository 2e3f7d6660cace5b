package replay

// tier is a priority band of the trace, replayed in its own queue.
type tier struct {
	name, queue string
}

// tiers are the priority bands, lowest first. 2019 bands are published
// with the trace (free 0-99, best-effort batch 100-115, mid 116-119,
// production 120-359, monitoring 360+); the 2011 trace numbers priorities
// 0-11, read here as free 0-1, batch 2-8, production 9-10 and
// monitoring 11 (the 2011 trace has no "mid" band).
var tiers = []tier{
	{"free", "free"},
	{"batch", "batch"},
	{"mid", "mid"},
	{"production", "production"},
	{"monitoring", "monitoring"},
}

func tierOf(v2019 bool, prio int32) int {
	if v2019 {
		switch {
		case prio < 100:
			return 0
		case prio <= 115:
			return 1
		case prio <= 119:
			return 2
		case prio < 360:
			return 3
		default:
			return 4
		}
	}
	switch {
	case prio <= 1:
		return 0
	case prio <= 8:
		return 1
	case prio <= 10:
		return 3
	default:
		return 4
	}
}

// DefaultConfig is the queue configuration of a replay: one queue per
// priority tier under root, higher tiers first (priority offsets), so the
// cluster serves production before batch before free work, as Borg does.
const DefaultConfig = `partitions:
  - name: default
    nodesortpolicy:
      type: fair
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: monitoring
            properties: {priority.offset: "400"}
          - name: production
            properties: {priority.offset: "300"}
          - name: mid
            properties: {priority.offset: "200"}
          - name: batch
            properties: {priority.offset: "100"}
          - name: free
`
