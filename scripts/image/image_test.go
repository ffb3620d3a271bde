package main

import (
	"archive/tar"
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestImage builds the image as make image does, reads it back from the
// OCI layout (one layer: the binary, a non-root user, CA certificates, no
// shell; a config that runs /mcpbench as that user), checks the two
// tarballs hold the same image, and runs the layer's binary: version, and
// a short run against the bundled server that binary serves.
func TestImage(t *testing.T) {
	tmp := t.TempDir()
	o := options{version: "v0.0.0-imagetest", commit: "feedbee", out: filepath.Join(tmp, "image"), arch: runtime.GOARCH, caFile: "/etc/ssl/certs/ca-certificates.crt"}
	out, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	img := layoutImage(t, out.layout)
	digest, _ := img.Digest()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != "/mcpbench" {
		t.Errorf("config: %s/%s user %q entrypoint %q", cf.OS, cf.Architecture, c.User, c.Entrypoint)
	}
	files := layerFiles(t, img, tmp)
	if !strings.Contains(files["etc/passwd"], "nonroot:x:65532:65532:") || len(files[caPath[1:]]) < 1000 {
		t.Errorf("passwd %q, CA bundle of %d bytes", files["etc/passwd"], len(files[caPath[1:]]))
	}
	for _, shell := range []string{"bin/sh", "bin/bash", "bin/busybox"} {
		if _, ok := files[shell]; ok {
			t.Errorf("the image has %s", shell)
		}
	}
	if _, ok := files["mcpbench"]; !ok {
		t.Fatalf("no /mcpbench in the layer: %v", keys(files))
	}

	// The layout's tarball and the docker one hold the same image.
	ociDir := filepath.Join(tmp, "from-tar")
	untar(t, out.ociTar, ociDir)
	if d, _ := layoutImage(t, ociDir).Digest(); d != digest {
		t.Errorf("OCI tarball holds %s, the layout %s", d, digest)
	}
	tag, _ := name.NewTag(imageRef)
	dimg, err := tarball.ImageFromPath(out.dockerTar, &tag)
	if err != nil {
		t.Fatalf("docker tarball: %v", err)
	}
	want, _ := img.ConfigName()
	if got, _ := dimg.ConfigName(); got != want {
		t.Errorf("docker tarball's config %s, the layout's %s", got, want)
	}

	runBinary(t, filepath.Join(tmp, "rootfs", "mcpbench"))
}

func layoutImage(t *testing.T, dir string) v1.Image {
	t.Helper()
	ii, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("OCI layout %s: %v", dir, err)
	}
	m, err := ii.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("index: %v, %+v", err, m)
	}
	if ref := m.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; ref != "latest" {
		t.Errorf("ref.name %q", ref)
	}
	img, err := ii.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// layerFiles reads the image's one layer, writes /mcpbench under
// tmp/rootfs and returns every file's content (directories as "").
func layerFiles(t *testing.T, img v1.Image, tmp string) map[string]string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]string{}
	eachEntry(t, rc, func(h *tar.Header, b []byte) {
		files[strings.TrimSuffix(h.Name, "/")] = string(b)
		if h.Name == "mcpbench" {
			if h.Mode&0o111 == 0 {
				t.Errorf("/mcpbench mode %o", h.Mode)
			}
			os.MkdirAll(filepath.Join(tmp, "rootfs"), 0o755)
			if err := os.WriteFile(filepath.Join(tmp, "rootfs", "mcpbench"), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	})
	return files
}

// eachEntry calls fn with every entry of the tar stream r and its content.
func eachEntry(t *testing.T, r io.Reader, fn func(*tar.Header, []byte)) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		fn(h, b)
	}
}

func untar(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	eachEntry(t, f, func(h *tar.Header, b []byte) {
		p := filepath.Join(dst, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			return
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	})
}

// runBinary runs the image's binary: version, then serve on a free
// loopback port and a 50-request run against it.
func runBinary(t *testing.T, bin string) {
	t.Helper()
	v, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "mcpbench v0.0.0-imagetest (commit feedbee, ") {
		t.Fatalf("version: %q (%v)", v, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0")
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	base := ""
	for sc := bufio.NewScanner(stdout); base == "" && sc.Scan(); {
		if _, after, ok := strings.Cut(sc.Text(), "listening on "); ok {
			base = strings.Fields(after)[0]
		}
	}
	if base == "" {
		t.Fatal("serve printed no address")
	}
	go io.Copy(io.Discard, stdout)
	b, err := exec.CommandContext(ctx, bin, "run", "--url", base+"/mcp", "-n", "50", "-c", "2", "--json-out", "-", "--no-progress").Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	var rep struct {
		OK     int `json:"ok"`
		Errors int `json:"errors"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.OK != 50 || rep.Errors != 0 {
		t.Fatalf("run report: ok %d errors %d (%v)", rep.OK, rep.Errors, err)
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestDockerfileMatchesImage: no daemon runs here to build the Dockerfile,
// so check that it makes the image make image makes: from scratch, the
// same user, CA bundle path and entrypoint.
func TestDockerfileMatchesImage(t *testing.T) {
	b, err := os.ReadFile("../k8s/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	for _, want := range []string{"\nFROM scratch\n", "\nUSER 65532:65532\n", "\nWORKDIR " + home + "\n", `ENTRYPOINT ["/mcpbench"]`, "SSL_CERT_FILE=" + caPath, "CGO_ENABLED=0", "nonroot:x:65532:65532:nonroot:" + home} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
