package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as: distroless's nonroot, so volume permissions
// set up for those images fit this one.
const (
	uid      = 65532
	userName = "nonroot"
	home     = "/home/nonroot"
	caPath   = "/etc/ssl/certs/ca-certificates.crt"
)

// epoch dates every file and the image itself, so the same binary makes
// the same image digest.
var epoch = time.Unix(0, 0).UTC()

// newImage is one layer on nothing: the files rootfs lists, with the
// config that runs /mcpbench as the non-root user.
func newImage(exe, ca []byte, o options) (v1.Image, error) {
	tarBytes, err := rootfs(exe, ca)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tarBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", o.arch, v1.Time{Time: epoch}
	cf.Config = v1.Config{
		User:       "65532:65532",
		Entrypoint: []string{"/mcpbench"},
		WorkingDir: home,
		Env:        []string{"SSL_CERT_FILE=" + caPath, "HOME=" + home},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "mcpbench",
			"org.opencontainers.image.version":  o.version,
			"org.opencontainers.image.revision": o.commit,
			"org.opencontainers.image.source":   "https://github.com/mcpbench/mcpbench",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the layer's tar: the binary, the user in passwd and group, the
// CA bundle, a home and a /tmp. No shell and no package manager.
func rootfs(exe, ca []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: owner, Gid: owner, ModTime: epoch})
	}
	file := func(name string, mode int64, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(b)), ModTime: epoch}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" + userName + ":x:65532:65532:" + userName + ":" + home + ":/sbin/nologin\n"
	group := "root:x:0:\n" + userName + ":x:65532:\n"
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file(caPath[1:], 0o644, ca) },
		func() error { return dir("home", 0o755, 0) },
		func() error { return dir(home[1:], 0o700, uid) },
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return file("mcpbench", 0o755, exe) },
		tw.Close,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// write puts the image in an OCI layout (replacing the last one), tars
// that layout, and writes a docker load tarball beside it.
func write(img v1.Image, o options) (outputs, error) {
	out := outputs{
		layout:    filepath.Join(o.out, "oci"),
		ociTar:    filepath.Join(o.out, "mcpbench-oci.tar"),
		dockerTar: filepath.Join(o.out, "mcpbench-docker.tar"),
	}
	if err := os.RemoveAll(out.layout); err != nil {
		return out, err
	}
	p, err := layout.Write(out.layout, empty.Index)
	if err != nil {
		return out, err
	}
	ref, err := name.NewTag(imageRef)
	if err != nil {
		return out, err
	}
	// ref.name is the tag by the OCI spec; containerd and podman read the
	// full name from the second annotation.
	annotations := map[string]string{
		"org.opencontainers.image.ref.name": ref.TagStr(),
		"io.containerd.image.name":          "docker.io/library/" + imageRef,
	}
	if err := p.AppendImage(img, layout.WithAnnotations(annotations)); err != nil {
		return out, err
	}
	if err := tarDir(out.layout, out.ociTar); err != nil {
		return out, err
	}
	return out, tarball.WriteToFile(out.dockerTar, ref, img)
}
