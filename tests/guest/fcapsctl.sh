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
check "fcapsctl --help lists setcap and getcap" sh -c 'fcapsctl --help | grep -q "setcap" && fcapsctl --help | grep -q getcap'
finish
