package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// TestK8sManifestDecodesStrictly decodes the sharded Job manifest with the
// Kubernetes API types, refusing any field they do not know (a misspelt
// or misplaced field that kubectl apply would drop or reject), and checks
// that it runs the image make image builds.
func TestK8sManifestDecodesStrictly(t *testing.T) {
	b, err := os.ReadFile("../k8s/mcpbench-shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var job batchv1.Job
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("manifest is not a batch/v1 Job with known fields only: %v", err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("apiVersion %q kind %q", job.APIVersion, job.Kind)
	}
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", job.Spec.CompletionMode)
	}
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Image != imageRef {
		t.Fatalf("containers %+v: want one running %s", cs, imageRef)
	}
	sc := job.Spec.Template.Spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("pod securityContext %+v: the image runs as a non-root user, so the pod can insist on it", sc)
	}

	// The strict decoder is what catches a stray field: prove it bites.
	bad := bytes.Replace(js, []byte(`"restartPolicy"`), []byte(`"restartPolicyy"`), 1)
	dec = json.NewDecoder(bytes.NewReader(bad))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&batchv1.Job{}); err == nil {
		t.Error("a misspelt field decoded without error")
	}
}
