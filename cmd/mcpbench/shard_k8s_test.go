package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcpbench/mcpbench/target"
)

type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name  string   `yaml:"name"`
					Image string   `yaml:"image"`
					Args  []string `yaml:"args"`
					Env   []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestK8sIndexedJob checks the sharded Job manifest's shape, then runs its
// container's arguments (as Kubernetes would expand them for pod 0, with a
// short duration) against the bundled server, so the flags stay real.
func TestK8sIndexedJob(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	b, err := os.ReadFile("../../scripts/k8s/mcpbench-shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" {
		t.Fatalf("want an Indexed batch/v1 Job, got %s %s %q", job.APIVersion, job.Kind, s.CompletionMode)
	}
	if s.Parallelism < 2 || s.Parallelism != s.Completions {
		t.Fatalf("parallelism %d, completions %d: want equal (every shard at once)", s.Parallelism, s.Completions)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 || s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("a retried shard would miss --start-at: backoffLimit %v, restartPolicy %q", s.BackoffLimit, s.Template.Spec.RestartPolicy)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	arg := func(name string) string {
		for i, a := range c.Args {
			if a == name && i+1 < len(c.Args) {
				return c.Args[i+1]
			}
		}
		return ""
	}
	if want := fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", s.Completions); arg("--shard") != want {
		t.Errorf("--shard %q, want %q", arg("--shard"), want)
	}
	if arg("--start-at") == "" || arg("--json-out") != "-" || c.Args[0] != "run" {
		t.Errorf("args %q: want run ... --start-at ... --json-out -", c.Args)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}

	// Expand as the kubelet does for pod 0, pointing at a local server.
	srv := startTarget(t, target.Config{Capacity: 64, ServiceTime: 5 * time.Millisecond})
	env["JOB_COMPLETION_INDEX"] = "0"
	env["TARGET_URL"] = srv.MCPURL()
	env["START_AT"] = strconv.FormatInt(time.Now().Unix(), 10)
	var args []string
	for i, a := range c.Args {
		for k, v := range env {
			a = strings.ReplaceAll(a, "$("+k+")", v)
		}
		if strings.Contains(a, "$(") {
			t.Fatalf("argument %q refers to a variable the container does not define", c.Args[i])
		}
		if i > 0 && (c.Args[i-1] == "-d" || c.Args[i-1] == "--duration") {
			a = "1s" // keep the test short
		}
		args = append(args, a)
	}
	r := runCLI(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("pod 0's command: exit %d: %s", r.code, r.stderr)
	}
	rep := parseShardRun(t, []byte(r.stdout))
	if rep.Shard == nil || rep.Shard.Index != 0 || rep.Shard.Count != s.Completions || rep.Requests == 0 {
		t.Fatalf("pod 0's report on stdout: shard %+v, %d requests", rep.Shard, rep.Requests)
	}
}

// TestRunShardedScript checks the collection script's syntax; running it
// needs a cluster.
func TestRunShardedScript(t *testing.T) {
	script, _ := filepath.Abs("../../scripts/k8s/run-sharded.sh")
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v: %s", err, out)
	}
}
