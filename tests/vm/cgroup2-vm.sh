#!/bin/sh
# Runs a command as root inside a throwaway VM whose kernel mounts only cgroup v2 (memory
# and pids enabled at the root, as systemd does), for hosts like the CI machine whose own
# cgroups are v1. The VM sees this machine's root filesystem read-only through 9p with a
# tmpfs overlay on top, so the build tree, bwrap and python are the host's.
# The VM has no network device at all (-nic none): nothing it does reaches any network.
#
#   tests/vm/cgroup2-vm.sh COMMAND [ARG...]     exit status = the command's
#
# Needs: qemu-system-x86, linux-image-amd64, busybox-static, cpio (scripts/test installs them);
# about a minute of emulated CPU with one vCPU (CORDON_VM_KVM=1 uses /dev/kvm). ctest runs it as
# cgroup2_vm.Limits (tests/CMakeLists.txt), so .ci/run does too.
set -eu

kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || { echo "cgroup2-vm: no kernel in /boot (apt-get install linux-image-amd64)" >&2; exit 125; }
version=${kernel#/boot/vmlinuz-}
command -v qemu-system-x86_64 >/dev/null || { echo "cgroup2-vm: apt-get install qemu-system-x86" >&2; exit 125; }
[ -x /bin/busybox ] || { echo "cgroup2-vm: apt-get install busybox-static" >&2; exit 125; }

work=$(mktemp -d /tmp/cordon-vm-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/initrd/bin" "$work/initrd/mods" "$work/share" "$work/sample"
# The memory budget's page-cache step reads this file through its own 9p mount (cache=loose:
# the guest's page cache, which a budget can reclaim). A file made inside the VM would sit on
# the tmpfs overlay (shmem, which nothing reclaims), and a host path in the build tree is not
# always visible through the root's 9p view (a CI clone on another mount was not).
head -c 100663296 /dev/zero > "$work/sample/sample.bin"
cp /bin/busybox "$work/initrd/bin/busybox"
modules="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
  drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci net/9p/9pnet net/9p/9pnet_virtio
  fs/netfs/netfs fs/fscache/fscache fs/9p/9p fs/overlayfs/overlay"
for m in $modules; do
  src=/lib/modules/$version/kernel/$m.ko
  [ -f "$src" ] || { echo "cgroup2-vm: missing module $src" >&2; exit 125; }
  cp "$src" "$work/initrd/mods/"
done

# Stage 1 (initramfs): overlay the host's root, switch into it.
cat > "$work/initrd/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc 2>/dev/null || { mkdir -p /proc /sys /dev; mount -t proc proc /proc; }
mkdir -p /sys /dev /lower /rw /newroot
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay; do
  insmod /mods/$m.ko || echo "stage1: insmod $m failed"
done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 hostroot /lower
mount -t tmpfs -o size=1500m tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot
mkdir -p /newroot/run/cordon-vm
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none share /newroot/run/cordon-vm
mkdir -p /newroot/mnt/cordon-vm-sample
# Read-write: it is a launch's workspace, and cordon refuses a workspace the session could not
# write (the file itself is only read; the directory goes with $work).
mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose sample /newroot/mnt/cordon-vm-sample
umount /sys /dev /proc
exec switch_root /newroot /bin/sh /run/cordon-vm/stage2
INIT
chmod 755 "$work/initrd/init"

# Stage 2 (the host's root, as PID 1): a systemd-like cgroup v2 layout, then the command.
{
  echo '#!/bin/sh'
  echo 'mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev'
  echo 'mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm'
  echo 'mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup'
  echo 'chmod 1777 /tmp'  # no tmpfs: the writable overlay keeps what the host has in /tmp (a build tree)
  echo 'echo "+memory +pids" > /sys/fs/cgroup/cgroup.subtree_control'
  echo 'mkdir /sys/fs/cgroup/init.scope && echo $$ > /sys/fs/cgroup/init.scope/cgroup.procs'
  echo 'ip link set lo up 2>/dev/null'
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CORDON_EXPECT_CGROUP_V2=1'
  echo 'export CORDON_PAGE_CACHE_WS=/mnt/cordon-vm-sample'
  printf 'cd %s\n' "$(pwd)"
  printf '('
  for arg in "$@"; do printf " '%s'" "$(printf %s "$arg" | sed "s/'/'\\\\''/g")"; done
  printf ')\n'
  echo 'echo $? > /run/cordon-vm/status'
  echo 'sync; echo o > /proc/sysrq-trigger; poweroff -f'
} > "$work/share/stage2"
chmod 755 "$work/share/stage2"

(cd "$work/initrd" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"
accel=""
# KVM is opt-in: on some nested hosts the guest hangs at boot under it; TCG boots in seconds.
[ "${CORDON_VM_KVM:-0}" = 1 ] && accel="-enable-kvm"
# The suite runs tests side by side (ctest -j): the VM is its longest test and its page-cache
# step reads over 9p under a 120 s bound, so as root it runs ahead of the other tests'
# processes instead of sharing the cores evenly with them.
priority=""
[ "$(id -u)" = 0 ] && priority="nice -n -5"
# One vCPU: with two, a CI run saw the guest's second vCPU never wake again (an RCU stall and
# a soft lockup on CPU 1 from the first test on, every test then timing out until the 1200 s
# bound). No softlockup_panic: under emulation a long but finite stall can trip the detector,
# and a warning that passes must not fail the run.
timeout 1200 $priority qemu-system-x86_64 $accel -m 3072 -smp 1 -nographic -no-reboot -nic none \
  -kernel "$kernel" -initrd "$work/initrd.gz" \
  -append "console=ttyS0 panic=-1 ${VM_KERNEL_ARGS:-quiet} cgroup_no_v1=all" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap \
  -virtfs local,path="$work/share",mount_tag=share,security_model=passthrough \
  -virtfs local,path="$work/sample",mount_tag=sample,security_model=passthrough </dev/null
[ -f "$work/share/status" ] || { echo "cgroup2-vm: the VM ended without a result" >&2; exit 125; }
exit "$(cat "$work/share/status")"
