#!/bin/sh
# The devcontainer image test's base image, made without any container registry: a Debian 12
# root filesystem built by mmdebstrap from the host's own Debian sources, holding the packages
# the Dockerfile's `ARG PACKAGES` and `ARG BUILD_PACKAGES` name (both stages start from it, so
# `podman build --network=none` installs nothing),
# plus ccache (the test's compiler cache, which the Dockerfile does not need), imported with
# `podman import`.
#
#   devcontainer_base.sh DOCKERFILE     prints the image's name: localhost/cordon-devc-base:KEY
#
# KEY is a digest of the suite, the variant, the sources and the package list: the rootfs
# tarball (CORDON_DEVC_CACHE, default /var/cache/cordon-test/devcontainer/KEY.tar) and the image
# are made once per KEY and reused by every later run, from any clone.
set -eu

dockerfile=${1:?usage: devcontainer_base.sh DOCKERFILE}
cache=${CORDON_DEVC_CACHE:-/var/cache/cordon-test/devcontainer}
suite=bookworm
variant=apt  # essential + apt, as Debian's own container images
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list

# The lists between `ARG PACKAGES="` (or `ARG BUILD_PACKAGES="`) and the closing quote, one
# name a line, sorted.
packages=$(awk '/^ARG [A-Z_]*PACKAGES="/ { on = 1; sub(/^ARG [A-Z_]*PACKAGES="/, "") }
  on { if (sub(/".*$/, "")) on = 0; sub(/\\$/, ""); print }' "$dockerfile" |
  tr -s ' \t' '\n' | sed '/^$/d')
[ -n "$packages" ] || { echo "devcontainer_base: no ARG PACKAGES in $dockerfile" >&2; exit 2; }
packages=$(printf '%s\nccache\n' "$packages" | sort -u)

key=$( (echo "$suite $variant"; cat "$sources"; echo "$packages") | sha256sum | cut -c1-16)
image=localhost/cordon-devc-base:$key
tar=$cache/$key.tar

mkdir -p "$cache"
# One builder at a time (parallel test processes, or a second clone's CI).
exec 9>"$cache/lock"
flock -w 1800 9 || { echo "devcontainer_base: $cache/lock held for 30 min" >&2; exit 1; }

if ! podman image exists "$image"; then
  if [ ! -s "$tar" ]; then
    echo "devcontainer_base: building $tar (mmdebstrap $suite, $(echo "$packages" | wc -l) packages)" >&2
    # Up to three tries against a transient mirror fault; the later tries run with apt's own
    # output (--quiet hides the cause). Run with fds 0-2 only (the test harness closes the
    # rest): mmdebstrap hands apt a pipe as `cat >&N`, and dash takes one-digit N only, so a
    # crowded fd table (ctest's log, a leaked fd) failed every try with "Bad fd number".
    quiet=--quiet
    for try in 1 2 3; do
      rm -f "$tar.part"
      if mmdebstrap $quiet --variant="$variant" --format=tar --include="$(echo "$packages" | paste -sd,)" \
        "$suite" "$tar.part" "$sources" >&2; then
        break
      fi
      [ "$try" = 3 ] && { echo "devcontainer_base: mmdebstrap failed 3 times" >&2; exit 1; }
      echo "devcontainer_base: mmdebstrap failed (try $try of 3); again in 15 s, with apt's output" >&2
      quiet=
      sleep 15
    done
    mv "$tar.part" "$tar"
  fi
  podman import --quiet --change 'CMD ["/bin/bash"]' "$tar" "$image" >/dev/null
  # Only the current key is kept: older tarballs and base images go (an image still in use stays).
  for old in "$cache"/*.tar; do [ "$old" = "$tar" ] || rm -f "$old"; done
  for old in $(podman images --format '{{.Repository}}:{{.Tag}}' localhost/cordon-devc-base); do
    [ "$old" = "$image" ] || podman rmi "$old" >/dev/null 2>&1 || true
  done
fi
echo "$image"
