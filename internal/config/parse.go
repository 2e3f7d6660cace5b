package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultText is the configuration used when the resource manager
// sends an empty configuration string (§1.1).
const DefaultText = `partitions:
  - name: default
    placementrules:
      - name: tag
        value: namespace
        create: true
    queues:
      - name: root
        submitacl: '*'
`

// Default returns the built-in configuration: partition "default" with a
// single root queue open to everyone and one placement rule, tag
// "namespace" with create=true.
func Default() *SchedulerConfig {
	c, err := Parse([]byte(DefaultText))
	if err != nil {
		panic("config: built-in default does not parse: " + err.Error())
	}
	return c
}

// Parse decodes a queues.yaml text strictly, normalises it, fills in
// defaults and validates it. A text that is empty or only white space
// yields Default(). Any problem, including unknown keys, makes Parse return
// a *ValidationError listing all of them; the returned config is then nil.
func Parse(data []byte) (*SchedulerConfig, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Default(), nil
	}
	conf, probs := decode(data)
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	var presence preemptionPresence
	// The strict decode succeeded, so this lenient one does too.
	_ = yaml.Unmarshal(data, &presence)
	probs, warnings := normaliseAndValidate(conf, &presence)
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	conf.Warnings = warnings
	conf.Checksum = ChecksumOf(data)
	return conf, nil
}

// preemptionPresence finds out which partitions set preemption.enabled, so
// that an absent key defaults to true.
type preemptionPresence struct {
	Partitions []struct {
		Preemption struct {
			Enabled *bool `yaml:"enabled"`
		} `yaml:"preemption"`
	} `yaml:"partitions"`
}

func (p *preemptionPresence) enabledSet(i int) bool {
	return i < len(p.Partitions) && p.Partitions[i].Preemption.Enabled != nil
}

// decode runs the strict YAML decode and turns its errors into problems.
func decode(data []byte) (*SchedulerConfig, []Problem) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	conf := &SchedulerConfig{}
	err := dec.Decode(conf)
	if errors.Is(err, io.EOF) {
		return nil, []Problem{{Key: "partitions", Message: "no partitions configured: at least one is required"}}
	}
	if err != nil {
		return nil, decodeProblems(err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, []Problem{{Message: "the configuration holds more than one YAML document"}}
	}
	return conf, nil
}

var lineRegexp = regexp.MustCompile(`^line (\d+): (.*)$`)

var unknownFieldRegexp = regexp.MustCompile(`^line (\d+): field (.*) not found in type (\S+)$`)

func decodeProblems(err error) []Problem {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []Problem{{Message: friendlyTypes(err.Error())}}
	}
	out := make([]Problem, 0, len(te.Errors))
	for _, e := range te.Errors {
		if m := unknownFieldRegexp.FindStringSubmatch(e); m != nil {
			what, valid := describeType(m[3])
			line, _ := strconv.Atoi(m[1])
			out = append(out, Problem{Line: line, Key: m[2], Message: fmt.Sprintf("unknown key in %s (valid keys: %s)", what, valid)})
			continue
		}
		if m := lineRegexp.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			out = append(out, Problem{Line: line, Message: friendlyTypes(m[2])})
			continue
		}
		out = append(out, Problem{Message: friendlyTypes(e)})
	}
	return out
}

// schemaTypes names the schema types for error messages.
var schemaTypes = map[string]struct {
	what string
	t    reflect.Type
}{
	"config.SchedulerConfig":         {"the top level", reflect.TypeFor[SchedulerConfig]()},
	"config.PartitionConfig":         {"a partition", reflect.TypeFor[PartitionConfig]()},
	"config.QueueConfig":             {"a queue", reflect.TypeFor[QueueConfig]()},
	"config.Resources":               {"resources", reflect.TypeFor[Resources]()},
	"config.ChildTemplate":           {"a childtemplate", reflect.TypeFor[ChildTemplate]()},
	"config.Limit":                   {"a limit", reflect.TypeFor[Limit]()},
	"config.PlacementRule":           {"a placement rule", reflect.TypeFor[PlacementRule]()},
	"config.Filter":                  {"a placement rule filter", reflect.TypeFor[Filter]()},
	"config.NodeSortPolicy":          {"nodesortpolicy (a mapping with type and resourceweights)", reflect.TypeFor[NodeSortPolicy]()},
	"config.PartitionPreemption":     {"preemption", reflect.TypeFor[PartitionPreemption]()},
	"config.UserGroupResolverConfig": {"usergroupresolver", reflect.TypeFor[UserGroupResolverConfig]()},
}

func describeType(goName string) (what, validKeys string) {
	st, ok := schemaTypes[goName]
	if !ok {
		return goName, "?"
	}
	var keys []string
	for i := range st.t.NumField() {
		tag := st.t.Field(i).Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return st.what, strings.Join(keys, ", ")
}

// friendlyTypes replaces Go type names in YAML decoder messages by the
// schema element they stand for.
func friendlyTypes(msg string) string {
	for goName, st := range schemaTypes {
		msg = strings.ReplaceAll(msg, goName, st.what)
	}
	return msg
}
