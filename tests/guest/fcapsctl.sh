#!/bin/sh
# fcapsctl setcap/getcap on the patched kernel, with the test image as /dev/vda.
. /fcaps/tests/lib.sh
mount -t ext4 /dev/vda /mnt 2>/dev/null
f=/tmp/fcapsctl-target
: > $f

check "setcap v1 text" fcapsctl setcap $f 'cap_net_raw,cap_kill+ep cap_chown+i'
check_out "getcap prints it back through libcap" "$f: v1 cap_chown=i cap_kill,cap_net_raw+ep" \
	fcapsctl getcap $f
check_out "the bytes are the v1 layout" \
	"security.capability=0x30039819202000002020000001000000" \
	sh -c "getfattr --absolute-names -e hex -n security.capability $f | grep ^security"
check "setcap picks v3 for cap_bpf" fcapsctl setcap $f 'cap_bpf+ep'
check_out "getcap shows v3" "$f: v3 cap_bpf=ep" fcapsctl getcap $f
check "setcap picks v3 for cap 32 alone" fcapsctl setcap $f 'cap_mac_override+ep'
check_out "getcap shows it, v3" "$f: v3 cap_mac_override=ep" fcapsctl getcap $f
check "setcap --format v3 for low caps" fcapsctl setcap --format v3 $f 'cap_net_raw+p'
check_out "getcap --json" \
	"{\"path\":\"$f\",\"form\":\"v3\",\"size\":28,\"value\":\"22050820000000000020000000000000000000000000000000000000\",\"effective\":\"0\",\"permitted\":\"0x2000\",\"inheritable\":\"0\",\"text\":\"cap_net_raw=p\"}" \
	fcapsctl getcap --json $f
check_out "getcap shows a malformed value with its bytes" \
	"/mnt/m_v3_size29: malformed legacy value (29 bytes): 22050820002000000020000000000000000000000000000000000000..." \
	fcapsctl getcap /mnt/m_v3_size29
check_out "... and one longer than its first read (256 bytes) with its whole size" \
	"/mnt/m_v1_size300: malformed legacy value (300 bytes): 30039819000000000000000000000000000000000000000000000000..." \
	fcapsctl getcap /mnt/m_v1_size300

out=$(fcapsctl setcap --format v1 $f 'cap_bpf+ep' 2>&1); rc=$?
check "setcap --format v1 refuses cap_bpf (exit 2)" [ "$rc" = 2 ]
check_contains "... saying why" "v1 names capabilities 0-31 only" "$out"
check_out "... and leaves the value alone" "$f: v3 cap_net_raw=p" fcapsctl getcap $f
out=$(fcapsctl setcap $f 'cap_nonsense+e' 2>&1); rc=$?
check "setcap rejects bad capability text (exit 2)" [ "$rc" = 2 ]
check_contains "... naming the text" "'cap_nonsense+e' is not capability text" "$out"
out=$(as_user fcapsctl setcap /tmp/fcapsctl-user 'cap_net_raw+ep' 2>&1); rc=$?
check "setcap as uid 1000 fails (exit 1)" [ "$rc" = 1 ]
check_out "getcap of a file without the xattr" "/etc/passwd: no security.capability" \
	fcapsctl getcap /etc/passwd
check "getcap of two files, one missing, fails" sh -c '! fcapsctl getcap /nonexistent /etc/passwd >/dev/null 2>&1'
check "setcap picks v1 for cap 31 (cap_setfcap)" fcapsctl setcap $f 'cap_setfcap+ep'
check_out "getcap shows v1" "$f: v1 cap_setfcap=ep" fcapsctl getcap $f
# policy scan walks by descriptor: a symbolic link in the tree is not
# followed out of it, and a file deeper than PATH_MAX is found
mkdir -p /tmp/outside /tmp/sc
cp /usr/local/bin/fcaps_probe /tmp/outside/capped
fcapsctl setcap /tmp/outside/capped 'cap_kill+ep'
ln -s /tmp/outside/capped /tmp/sc/filelink
ln -s /tmp/outside /tmp/sc/dirlink
# built from the bottom up by renames of short paths: the shell cannot
# cd deeper than PATH_MAX
D=d1234567890123456789
mkdir /tmp/sc/$D
cp /usr/local/bin/fcaps_probe /tmp/sc/$D/deepfile
fcapsctl setcap /tmp/sc/$D/deepfile 'cap_net_raw+ep' >/dev/null
deep_ino=$(stat -c %i /tmp/sc/$D/deepfile)
for i in $(seq 2 220); do mkdir /tmp/sc/up && mv /tmp/sc/$D /tmp/sc/up/ && mv /tmp/sc/up /tmp/sc/$D; done
deep_path=/tmp/sc$(for i in $(seq 1 220); do printf /$D; done)/deepfile
out_ino=$(stat -c %i /tmp/outside/capped)
check_out "the deep file's path is longer than PATH_MAX" \
	"File name too long" sh -c "stat $deep_path 2>&1 | grep -o 'File name too long'"
# mounts below the root: a tmpfs is walked, proc named and passed, and a
# ramfs (no xattrs at all) holds nothing to read
mkdir -p /tmp/sc/m /tmp/sc/r /tmp/sc/proc
mount -t tmpfs m /tmp/sc/m && mount -t ramfs r /tmp/sc/r && mount -t proc proc /tmp/sc/proc
# the file's policy key, as policy list prints it
capped() {
	: > $1 && fcapsctl setcap $1 'cap_kill+ep' && d=$(stat -c %d $1) &&
		echo "dev=$((d >> 8 & 0xfff)):$((d & 0xff | (d >> 12 & 0xfff00)))_ino=$(stat -c %i $1)"
}
m_ino=$(capped /tmp/sc/m/mcap)
: > /tmp/sc/r/plain
# 300 directories down, deeper than the descriptors the load may hold
# (a hard limit of 200, which the bpf objects share): capped files at the
# top, on either side of the way down at level 150, and at the bottom
tops=$(capped /tmp/sc/top)
tops="$tops $(cd /tmp/sc && for i in $(seq 300); do
	[ $i = 150 ] && capped before
	mkdir d && { [ $i != 150 ] || capped after; } && cd d || exit 1
done && capped bottom)"
# 300 hard links to one capped file (held open once, not 300 times), and
# a bind mount of the tree inside itself (not walked again)
mkdir /tmp/sc/links /tmp/sc/loop
for i in $(seq 300); do ln /tmp/sc/top /tmp/sc/links/$i; done
mount --bind /tmp/sc /tmp/sc/loop
out=$(sh -c 'ulimit -n 200 && fcapsctl load --mode shadow --scan /tmp/sc' 2>&1 >/dev/null); rc=$?
check "load --scan of the tree, with a hard limit of 200 descriptors" [ "$rc" = 0 ]
check_contains "... the bind mount of the tree inside it skipped" \
	"skipped /tmp/sc/loop: a mount of a directory above it: not walked again" "$out"
check_contains "... names the proc mount below it, not walked" \
	"/tmp/sc/proc: a 0x9fa0 mount, which holds no file capabilities: not walked" "$out"
check_contains "... and skips nothing else" "/tmp/sc: 1 entries skipped" "$out"
for k in $m_ino $tops; do
	check_out "policy list has ${k#*_} (on the tmpfs below, the 300 levels)" \
		"1" sh -c "fcapsctl policy list | grep -c '^$(echo $k | tr _ ' ') '"
done
check_out "... and the file deeper than PATH_MAX" "1" \
	sh -c "fcapsctl policy list | grep -c ' ino=$deep_ino .* v1 '"
check_out "... and not the file two links point to" "0" \
	sh -c "fcapsctl policy list | grep -c ' ino=$out_ino '"
# the scan's own descriptor table: the listing's descriptor is closed
# before the walk, so one entry is always gone when it is reached
out=$(sh -c 'exec fcapsctl policy scan /proc/$$/fdinfo' 2>&1); rc=$?
check "policy scan of its own fdinfo succeeds" [ "$rc" = 0 ]
check_contains "... warning of the entry gone while scanned" "gone while scanned" "$out"
check_contains "... and counting it" "/fdinfo: 1 entries skipped" "$out"
step "unload" fcapsctl unload
umount /tmp/sc/loop /tmp/sc/proc /tmp/sc/r /tmp/sc/m
rm -rf /tmp/sc /tmp/outside 2>/dev/null
out=$(fcapsctl load --help 2>&1); rc=$?
check "load --help exits 0..." [ "$rc" = 0 ]
check_contains "... prints load's usage" "usage: fcapsctl load" "$out"
check "... and loads nothing" sh -c '! [ -e /sys/fs/bpf/fcaps ]'
check "fcapsctl --help lists setcap and getcap" sh -c 'fcapsctl --help | grep -q "setcap" && fcapsctl --help | grep -q getcap'
finish
