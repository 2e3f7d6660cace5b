package config

import (
	"bytes"
	"encoding/json"

	"go.yaml.in/yaml/v3"
)

// YAML renders the configuration as queues.yaml text with lower-case keys,
// as normalised by Parse (root inserted, names lower-cased, defaults set).
func (c *SchedulerConfig) YAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// JSON renders the configuration with the Go field names the reference
// uses on GET /ws/v1/config (Partitions, Name, Queues, ...).
func (c *SchedulerConfig) JSON() ([]byte, error) {
	return json.Marshal(c)
}
