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
step "load --mode shadow --scan the tree" fcapsctl load --mode shadow --scan /tmp/sc
check_out "policy list has the file deeper than PATH_MAX..." "1" \
	sh -c "fcapsctl policy list | grep -c ' ino=$deep_ino .* v1 '"
check_out "... and not the file two links point to" "0" \
	sh -c "fcapsctl policy list | grep -c ' ino=$out_ino '"
step "unload" fcapsctl unload
rm -rf /tmp/sc /tmp/outside 2>/dev/null
out=$(fcapsctl load --help 2>&1); rc=$?
check "load --help exits 0..." [ "$rc" = 0 ]
check_contains "... prints load's usage" "usage: fcapsctl load" "$out"
check "... and loads nothing" sh -c '! [ -e /sys/fs/bpf/fcaps ]'
check "fcapsctl --help lists setcap and getcap" sh -c 'fcapsctl --help | grep -q "setcap" && fcapsctl --help | grep -q getcap'
finish
