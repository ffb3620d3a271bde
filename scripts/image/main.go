// Command image builds mcpbench's container image without a container
// daemon (make image): a static binary, a non-root user and the build
// machine's CA certificates in one layer, no shell, written as an OCI
// layout, that layout as a tarball (podman load, skopeo's oci-archive:)
// and a docker load tarball, into -out. scripts/k8s/Dockerfile builds the
// same image where a daemon is.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// imageRef is the name the image is loaded under; the Kubernetes manifest
// (scripts/k8s/mcpbench-shards.yaml) runs it.
const imageRef = "mcpbench:latest"

type options struct {
	version, commit, out, arch, caFile string
}

func main() {
	var o options
	flag.StringVar(&o.version, "version", "dev", "version to stamp into the binary and label the image with")
	flag.StringVar(&o.commit, "commit", "unknown", "commit to stamp into the binary")
	flag.StringVar(&o.out, "out", ".run/image", "directory for the layout and the tarballs")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "linux architecture to build for")
	flag.StringVar(&o.caFile, "ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "CA bundle to put in the image")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "image: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	paths, err := build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("image %s (linux/%s): OCI layout %s, %s, docker load: %s\n", imageRef, o.arch, paths.layout, paths.ociTar, paths.dockerTar)
}

type outputs struct{ layout, ociTar, dockerTar string }

// build compiles the binary and writes the image's three forms under o.out.
func build(o options) (outputs, error) {
	ca, err := os.ReadFile(o.caFile)
	if err != nil {
		return outputs{}, fmt.Errorf("CA certificates: %w (install ca-certificates, or pass -ca-certificates FILE)", err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return outputs{}, err
	}
	bin := filepath.Join(o.out, "mcpbench-linux-"+o.arch)
	if err := compile(o, bin); err != nil {
		return outputs{}, err
	}
	defer os.Remove(bin)
	exe, err := os.ReadFile(bin)
	if err != nil {
		return outputs{}, err
	}
	img, err := newImage(exe, ca, o)
	if err != nil {
		return outputs{}, err
	}
	return write(img, o)
}

// compile builds the static linux binary, stamped as make build stamps.
func compile(o options, bin string) error {
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s", o.version, o.commit)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "github.com/mcpbench/mcpbench/cmd/mcpbench")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}
