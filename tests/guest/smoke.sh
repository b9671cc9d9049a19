#!/bin/sh
# Guest smoke test of the pipeline: LSMs, BTF, a BPF LSM skeleton, the
# unprivileged user, ext4 from a host-made image.
. /fcaps/tests/lib.sh

lsms=$(cat /sys/kernel/security/lsm)
echo "active LSMs: $lsms"
check "LSM list has capability" sh -c 'tr , "\n" </sys/kernel/security/lsm | grep -qx capability'
check "LSM list has bpf" sh -c 'tr , "\n" </sys/kernel/security/lsm | grep -qx bpf'
check "kernel BTF at /sys/kernel/btf/vmlinux" test -s /sys/kernel/btf/vmlinux

suite smoke_lsm

check_out "uid 1000 exists as 'user'" "uid=1000(user) gid=1000(user)" as_user id
: >/tmp/owned && chown 1000:1000 /tmp/owned
# A 6.1 v2 value (cap_net_raw, effective): only CAP_SETFCAP may write it.
v2=0x0100000200200000000000000000000000000000
check_out "uid 1000 cannot write security.capability on its own file" \
	"setfattr: /tmp/owned: Operation not permitted" \
	as_user setfattr -n security.capability -v $v2 /tmp/owned
step "root can write security.capability" setfattr -n security.capability -v $v2 /tmp/owned
# 6.1 with the bpf LSM skipped cap_inode_setxattr (bpf_lsm_inode_setxattr's
# default 0); kernel-patch 0001 makes the LSM layer run it (docs/kernel.md,
# "security.* and the bpf LSM").
step "root writes security.fcaps_smoke on tmpfs" setfattr -n security.fcaps_smoke -v root /tmp/owned
check "uid 1000 cannot write security.fcaps_smoke on its own file" \
	sh -c '! runas 1000 setfattr -n security.fcaps_smoke -v user /tmp/owned'
check_out "and the value is still root's" "root" \
	getfattr --absolute-names --only-values -n security.fcaps_smoke /tmp/owned

if [ -b /dev/vda ]; then
	step "host-made ext4 image mounts" mount -t ext4 /dev/vda /mnt
	check_out "file from mkfs.ext4 -d reads back" "fcaps ext4 smoke" cat /mnt/hello.txt
	step "root writes security.* on ext4" setfattr -n security.fcaps_smoke -v 1 /mnt/hello.txt
	umount /mnt
else
	fail "no /dev/vda: run with --disk"
fi
finish
