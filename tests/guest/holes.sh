#!/bin/sh
# holes.sh kernel|bpf|sync|faults|ceiling|nolsm: the attacks of SEMANTICS 3 and 6,
# each of which must fail. The test image is /dev/vda.
#   kernel  patched kernel, its rules on, no BPF loaded (the bpf LSM is
#           active, which is what opened the xattr holes in 6.1)
#   bpf     stock kernel, BPF enforcing
#   sync    patched kernel, BPF in shadow: BPF's view of a file must follow
#           the file the kernel actually executes
#   faults  fcapsctl killed at every step of load and unload
#   nolsm   booted with lsm=capability: no bpf LSM
#   ceiling patched kernel: root running a capped file gets no more than
#           its sets, from the kernel's rules, and from BPF's ceiling
. /fcaps/tests/lib.sh
mode=$1
H=/tmp/h
mkdir -p $H
cp /usr/local/bin/fcaps_probe $H/capped
cp /usr/local/bin/fcaps_probe $H/plain
# a 6.1 v2 value (cap_net_raw, effective) for the stock kernel
V2=0x0100000200200000000000000000000000000000
# a 6.1 v3 value (cap_net_raw, effective) of rootid 1000
V3_1000=0x0100000300200000000000000000000000000000e8030000
# a legacy v1 value (cap_net_raw, effective)
V1=0x30039819002000000020000000000000
T=/usr/local/bin/fcaps_tamper

val() { getfattr --absolute-names -e hex -n security.capability "$1" 2>&1 | sed -n 's/^security.capability=//p'; }
# the BPF policy entry of a file: "size form text"
pol() { fcapsctl policy list | grep "ino=$(stat -c %i "$1") " | cut -d' ' -f3-; }
# "legacy ret pP" of the newest exec record for the pid that $2.. reports, in map $1
rec_of() {
	map=$1; shift
	pid=$("$@" | sed -n 's/^pid=\([0-9]*\).*/\1/p')
	fcapsctl decisions --json | grep "\"map\":\"$map\"" | grep "\"hook\":\"exec\",\"pid\":$pid," |
		sed 's/.*"seq":\([0-9]*\).*"ret":\(-*[0-9]*\).*"legacy":\([0-9]\).*"pp":\([0-9]*\).*/\1 \3 \2 \4/' |
		sort -n | tail -n 1 | cut -d' ' -f2-
}
# "legacy ret pP pE AT_SECURE" of the same record
recx_of() { m=$1; shift; recf_of "$m" "legacy ret pp pe secureexec" "$@"; }
# the fields FIELDS of the newest exec record for the pid that $3.. reports, in map $1
recf_of() {
	map=$1 fl=$2; shift 2
	pid=$("$@" | sed -n 's/^pid=\([0-9]*\).*/\1/p')
	r=$(fcapsctl decisions --json | grep "\"map\":\"$map\"" |
		grep "\"hook\":\"exec\",\"pid\":$pid," | tail -n 1)
	for f in $fl; do
		echo "$r" | sed -n "s/.*\"$f\":\(-*[0-9]*\).*/\1/p"
	done | tr '\n' ' ' | sed 's/ $//'
}
# the values of the probe's KEY=... words, in the order asked: "fields KEY... -- CMD..."
fields() {
	keys=""
	while [ "$1" != -- ]; do keys="$keys $1"; shift; done
	shift
	out=$("$@" 2>&1)
	for k in $keys; do echo "$out" | tr ' ' '\n' | sed -n "s/^$k=//p"; done | tr '\n' ' ' | sed 's/ $//'
}

xattr_attacks() {	# $1: what the file's value is, for the messages
	before=$(val $H/capped)
	polb=$(pol $H/capped 2>/dev/null)
	check "uid 1000 cannot remove security.capability ($1) of a root-owned file: EPERM" \
		eperm runas 1000 setfattr -x security.capability $H/capped
	check "uid 1000 cannot overwrite it with a v2 value: EPERM" \
		eperm runas 1000 setfattr -n security.capability -v $V2 $H/capped
	check "uid 1000 cannot write an empty security.capability: EPERM" \
		eperm runas 1000 setfattr -n security.capability $H/capped
	: > $H/own && chown 1000:1000 $H/own
	check "uid 1000 cannot write an empty security.capability even on its own file" \
		eperm runas 1000 setfattr -n security.capability $H/own
	check "uid 1000 cannot write security.fcaps_other on its own file: EPERM" \
		eperm runas 1000 setfattr -n security.fcaps_other -v 1 $H/own
	check "uid 1000 cannot remove security.fcaps_other set by root: EPERM" \
		sh -c "setfattr -n security.fcaps_other -v 1 $H/own && runas 1000 setfattr -x security.fcaps_other $H/own 2>&1 | grep -q 'Operation not permitted'"
	check_out "... the value is unchanged" "$before" val $H/capped
	[ -n "$polb" ] && check_out "... and so is the BPF policy entry" "$polb" pol $H/capped
	step "root may still write an empty value (CAP_SETFCAP)" setfattr -n security.capability $H/own
	# over the inode means both its ids mapped in the writer's namespace
	: > $H/own_g0 && chown 1000:0 $H/own_g0
	check "uid 1000 as root of its own namespace cannot write an empty security.capability on a file whose group it does not map: EPERM" \
		eperm runas 1000 unshare -r setfattr -n security.capability $H/own_g0
	check "... and may on a file of its own, both ids mapped" \
		runas 1000 unshare -r setfattr -n security.capability $H/own
}

userns_kill() {
	runas 1000 sleep 100 &
	t=$!
	sleep 0.2
	check "uid 1000 signals its own uncapped process (same namespace, subset): allowed" \
		runas 1000 kill -0 $t
	check "uid 1000 in unshare -Ur (full set in its own namespace): EPERM" \
		eperm runas 1000 unshare -r kill -TERM $t
	check "... and the target lives" kill -0 $t
	kill $t; wait $t 2>/dev/null
	# the target in a child namespace of uid 1000: its owner holds CAP_KILL there
	runas 1000 unshare -r sleep 100 &
	t=$!
	sleep 0.2
	check "uid 1000 signals its process in a child namespace it owns: allowed" \
		runas 1000 kill -0 $t
	kill $t; wait $t 2>/dev/null
}

# the lines "$@" prints, joined by spaces
joined() { "$@" 2>&1 | tr '\n' ' ' | sed 's/ $//'; }

# keyctl's session-to-parent rebuilds the parent's credentials from blank
# ones (cred_transfer, which cannot refuse): a capped root's stay capped.
# $1: fcaps_tamper capped with cap_net_raw+ep; $2: which rules cap it.
session_to_parent() {
	check_out "$2: a capped root takes a session keyring from its child: sethostname still EPERM" \
		"session-to-parent: ok sethostname: EPERM" joined $1 session-to-parent
	check_out "... an uncapped root: sethostname allowed" \
		"session-to-parent: ok sethostname: ok" joined $T session-to-parent
	# the parent's own ceiling carried over, not an empty one
	[ -n "$3" ] && check_out "... a capped root holding cap_sys_admin: sethostname still allowed" \
		"session-to-parent: ok sethostname: ok" joined $3 session-to-parent
}
# BPF reserves a ceiling slot for each pending replacement, at most 256
parked_parents() {	# $1: the 257th's result, $2: what it means
	check_out "256 session-to-parent replacements pending (parents asleep): the 257th $2" \
		"park-parents: $1" parked 256
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(parked 0)" = "park-parents: ok" ] && break
		sleep 0.3
	done
	check_out "... once the parents woke and took theirs, one more succeeds" \
		"park-parents: ok" parked 0
}
parked() { $T park-parents "$1" 2>/dev/null; }

# binfmt_misc: the interpreter's value decides an exec, or with the `C`
# flag the binary's (bprm->executable). $H/interp is fcaps_probe capped
# with cap_sys_nice+ep; $H/bin.fcc and $H/bin.fcn, cap_net_raw+ep.
binfmt_files() {
	cp /usr/local/bin/fcaps_probe $H/interp
	printf 'not an ELF\n' > $H/bin.fcc && chmod 755 $H/bin.fcc && cp -p $H/bin.fcc $H/bin.fcn
}
binfmt_legacy_files() {
	binfmt_files
	fcapsctl setcap $H/interp 'cap_sys_nice+ep'
	for f in bin.fcc bin.fcn; do fcapsctl setcap $H/$f 'cap_net_raw+ep'; done
}
binfmt_register() {
	mkdir -p /tmp/binfmt && mount -t binfmt_misc binfmt_misc /tmp/binfmt
	echo ":fcapsc:E::fcc::$H/interp:C" > /tmp/binfmt/register
	echo ":fcapsn:E::fcn::$H/interp:O" > /tmp/binfmt/register
}
binfmt_unregister() {
	echo -1 > /tmp/binfmt/fcapsc; echo -1 > /tmp/binfmt/fcapsn; umount /tmp/binfmt
}
binfmt_prm() {
	echo "$(fields Prm -- runas 1000 $H/bin.fcc status) $(fields Prm -- runas 1000 $H/bin.fcn status)"
}
# the sets of the AUDIT_BPRM_FCAPS record of uid 1000 running $1
audit_caps() {
	/usr/local/bin/fcaps_audit "$(command -v runas)" 1000 "$1" status |
		sed -n 's/^bprm_fcaps: //p' | sed 's/ old_pp=.*//'
}
# $1: the map whose records to read (decisions, or kdecisions: the kernel's)
binfmt_execs() {
	check_out "binfmt_misc C: uid 1000 runs a cap_net_raw+ep binary through a cap_sys_nice+ep interpreter: the binary's value ($1: legacy ret pP)" \
		"1 0 8192" rec_of $1 runas 1000 $H/bin.fcc status
	check_out "binfmt_misc without C: the interpreter's value ($1)" \
		"1 0 8388608" rec_of $1 runas 1000 $H/bin.fcn status
}

# Idmapped mounts of the ext4 image (kernel path; idmapped_bpf for BPF):
# a legacy value has no rootid to confine it, so none is written through
# one (SEMANTICS 1), and one read through one belongs to the root the
# idmap shows the filesystem's as
idmapped() {
	mount /dev/vda /mnt
	mkdir -p /mnt/idm $H/idm_same $H/idm_1000
	cp /usr/local/bin/fcaps_probe /mnt/idm/p && fcapsctl setcap /mnt/idm/p 'cap_net_raw+ep'
	: > /mnt/idm/w
	check_out "an idmapped bind of the image, ids unchanged (0 0 65536)" "idmap-mount: ok" \
		$T idmap-mount /mnt/idm $H/idm_same "0 0 65536"
	check "root writes a legacy value through it: EPERM" \
		eperm setfattr -n security.capability -v $V1 $H/idm_same/w
	check_out "... and the file has no value" "" val /mnt/idm/w
	check "... a 6.1 v2 value through it: allowed (a rootid confines it)" \
		setfattr -n security.capability -v $V2 $H/idm_same/w
	check "... the legacy value on the image's own mount: allowed" \
		setfattr -n security.capability -v $V1 /mnt/idm/w
	check_out "an idmapped bind showing the image's root as uid 1000 (0 1000 1)" \
		"idmap-mount: ok" $T idmap-mount /mnt/idm $H/idm_1000 "0 1000 1"
	check_out "uid 1000 runs a cap_net_raw+ep file through it: ignored (its root is not ours)" \
		"0 0" fields Prm secure -- runas 1000 $H/idm_1000/p status
	check_out "... the same file on the image's own mount: cap_net_raw" "0x2000 1" \
		fields Prm secure -- runas 1000 /mnt/idm/p status
	umount $H/idm_1000; umount $H/idm_same; umount /mnt
}

# The same under BPF (stock kernel, enforcing): the exec decision follows
# the mount's idmap as the kernel does. The stock kernel's credentials
# answer for a v2 value and setid bits; a legacy value through one is
# ignored, as idmapped() shows the kernel path does.
idmapped_bpf() {
	mount /dev/vda /mnt
	mkdir -p /mnt/idb $H/idb_1000 $H/idb_root
	cp /usr/local/bin/fcaps_probe /mnt/idb/v2 && setfattr -n security.capability -v $V2 /mnt/idb/v2
	cp /usr/local/bin/fcaps_probe /mnt/idb/v1 && fcapsctl policy add /mnt/idb/v1 cap_net_raw+ep
	cp /usr/local/bin/fcaps_probe /mnt/idb/suid0 && chmod 4755 /mnt/idb/suid0
	cp /usr/local/bin/fcaps_probe /mnt/idb/suid1000 && chown 1000:1000 /mnt/idb/suid1000 &&
		chmod 6755 /mnt/idb/suid1000
	check_out "an idmapped bind showing the image's root as uid 1000 (0 1000 1)" \
		"idmap-mount: ok" $T idmap-mount /mnt/idb $H/idb_1000 "0 1000 1"
	check_out "... and one showing its uid 1000 as root (1000 0 1)" \
		"idmap-mount: ok" $T idmap-mount /mnt/idb $H/idb_root "1000 0 1"
	check_out "uid 1000 runs a v2 file (cap_net_raw) on the image: the kernel's euid Prm secure" \
		"1000 0x2000 1" fields euid Prm secure -- runas 1000 /mnt/idb/v2 status
	check_out "... BPF's record (legacy ret pP pE AT_SECURE)" "0 0 8192 8192 1" \
		recx_of decisions runas 1000 /mnt/idb/v2 status
	check_out "... through 0 1000 1 the value is ignored (its root is not ours): the kernel's" \
		"1000 0 0" fields euid Prm secure -- runas 1000 $H/idb_1000/v2 status
	check_out "... BPF's" "0 0 0 0 0" recx_of decisions runas 1000 $H/idb_1000/v2 status
	check_out "uid 1000 runs a legacy-capped file on the image: BPF applies it" "1 0 8192 8192 1" \
		recx_of decisions runas 1000 /mnt/idb/v1 status
	check_out "... through 0 1000 1 it is ignored, as on the kernel path" "0 0 0 0 0" \
		recx_of decisions runas 1000 $H/idb_1000/v1 status
	check_out "uid 1000 runs a setuid-root file through 0 1000 1: its owner shows as 1000, no setid (the kernel's)" \
		"1000 0 0" fields euid Prm secure -- runas 1000 $H/idb_1000/suid0 status
	check_out "... BPF's" "0 0 0 0 0" recx_of decisions runas 1000 $H/idb_1000/suid0 status
	check_out "uid 1000 runs its own setuid file through 1000 0 1: root, every capability (the kernel's)" \
		"0 0x1ffffffffff 1" fields euid Prm secure -- runas 1000 $H/idb_root/suid1000 status
	check_out "... BPF's" "0 0 2199023255551 2199023255551 1" \
		recx_of decisions runas 1000 $H/idb_root/suid1000 status
	# the xattr guard (CAP_SETFCAP over the owner, as the mount shows it)
	: > /mnt/idb/ownv && chown 1000:1000 /mnt/idb/ownv &&
		setfattr -n security.capability -v $V2 /mnt/idb/ownv
	check "root of uid 1000's namespace cannot empty the value of its own file through 1000 0 1, which shows it as root's: EPERM" \
		eperm runas 1000 unshare -r setfattr -n security.capability $H/idb_root/ownv
	check_out "... the value is unchanged" "$V2" val /mnt/idb/ownv
	check "... on the image's own mount it may" \
		runas 1000 unshare -r setfattr -n security.capability /mnt/idb/ownv
	# the group as the mount shows it: unmapped there, no setid
	cp /usr/local/bin/fcaps_probe /mnt/idb/suidg0 && chown 1000:0 /mnt/idb/suidg0 &&
		chmod 4755 /mnt/idb/suidg0
	check_out "uid 1000 runs its setuid file of group 0 through 1000 0 1, which maps no group 0: no setid (the kernel's)" \
		"1000 0 0" fields euid Prm secure -- runas 1000 $H/idb_root/suidg0 status
	check_out "... BPF's" "0 0 0 0 0" recx_of decisions runas 1000 $H/idb_root/suidg0 status
	cp /usr/local/bin/fcaps_probe /mnt/idb/sgid1000 && chown 1000:1000 /mnt/idb/sgid1000 &&
		chmod 2755 /mnt/idb/sgid1000
	check_out "... its setgid file through it: egid 0 (the kernel's euid egid secure)" "1000 0 1" \
		fields euid egid secure -- runas 1000 $H/idb_root/sgid1000 status
	check_out "... BPF's (euid egid setid AT_SECURE)" "1000 0 1 1" \
		recf_of decisions "euid egid setid secureexec" runas 1000 $H/idb_root/sgid1000 status
	# a namespace's root: the owner the mount shows must be mapped there
	check_out "root of uid 1000's namespace runs suid1000 through 1000 0 1 (its owner shows as root, unmapped there): no setid (the kernel's euid secure)" \
		"0 0" fields euid secure -- runas 1000 unshare -r $H/idb_root/suid1000 status
	check_out "... BPF's" "0 0 2199023255551 2199023255551 0" \
		recx_of decisions runas 1000 unshare -r $H/idb_root/suid1000 status
	# a v3 rootid through the mount: rootid 1000, shown as root
	cp /usr/local/bin/fcaps_probe /mnt/idb/v3 && setfattr -n security.capability -v $V3_1000 /mnt/idb/v3
	check_out "a v3 value of rootid 1000 (cap_net_raw) on the image: ignored (the kernel's)" "1000 0 0" \
		fields euid Prm secure -- runas 1000 /mnt/idb/v3 status
	check_out "... BPF's" "0 0 0 0 0" recx_of decisions runas 1000 /mnt/idb/v3 status
	check_out "... through 1000 0 1 its root is ours: applied (the kernel's)" "1000 0x2000 1" \
		fields euid Prm secure -- runas 1000 $H/idb_root/v3 status
	check_out "... BPF's" "0 0 8192 8192 1" recx_of decisions runas 1000 $H/idb_root/v3 status
	# a mount map of six ranges (past the five inline extents), and
	# different uid and gid maps
	mkdir -p $H/idb_6 $H/idb_ug
	check_out "a bind of six ranges, the sixth showing uid 1000 as root" "idmap-mount: ok" \
		$T idmap-mount /mnt/idb $H/idb_6 "$(printf '0 2000 1\n1 2001 1\n2 2002 1\n3 2003 1\n4 2004 1\n1000 0 1')"
	check_out "... uid 1000's setuid file through it: root (the kernel's)" "0 0x1ffffffffff 1" \
		fields euid Prm secure -- runas 1000 $H/idb_6/suid1000 status
	check_out "... BPF's" "0 0 2199023255551 2199023255551 1" \
		recx_of decisions runas 1000 $H/idb_6/suid1000 status
	cp /usr/local/bin/fcaps_probe /mnt/idb/ug && chown 1000:0 /mnt/idb/ug && chmod 6755 /mnt/idb/ug
	check_out "a bind whose uid map shows 1000 as 0 and gid map 0 as 1000" "idmap-mount: ok" \
		$T idmap-mount /mnt/idb $H/idb_ug "1000 0 1" "0 1000 1"
	check_out "... uid 1000's 6755 file of group 0 through it: root, group 1000 (the kernel's euid egid Prm)" \
		"0 1000 0x1ffffffffff" fields euid egid Prm -- runas 1000 $H/idb_ug/ug status
	check_out "... BPF's (euid egid setid AT_SECURE)" "0 1000 1 1" \
		recf_of decisions "euid egid setid secureexec" runas 1000 $H/idb_ug/ug status
	umount $H/idb_ug; umount $H/idb_6
	umount $H/idb_root; umount $H/idb_1000; umount /mnt
	case "$(uname -r)" in 6.12*) idmapped_userns_tmpfs;; esac
}

# 6.12 idmaps a tmpfs mounted inside a user namespace: an id goes up
# through that namespace, then down through the mount's map. The
# namespace maps its root to kuid 0 and its uid N to kuid 100000 + N (its
# second shell, exec'd once the maps are written, is root there); it
# mounts a tmpfs, makes a setuid file of its uid 1 and binds it with
# "1 0 1", which shows uid 1 as its root.
idmapped_userns_tmpfs() {
	mkdir -p $H/ut $H/ut_idm
	cat > $H/ut_in.sh <<EOS
mount -t tmpfs t $H/ut && cp /usr/local/bin/fcaps_probe $H/ut/s && chown 1:1 $H/ut/s &&
	chmod 6755 $H/ut/s && $T idmap-mount $H/ut $H/ut_idm '1 0 1' >/dev/null &&
	runas 1000 $H/ut_idm/s status && setfattr -n security.capability $H/ut_idm/s && echo guard=ok
EOS
	unshare -Um sh -c "sleep 1; sh $H/ut_in.sh" > $H/ut.out 2>&1 &
	ns=$!
	sleep 0.3
	printf '0 0 1\n1 100001 65535\n' > /proc/$ns/uid_map
	printf '0 0 1\n1 200001 65535\n' > /proc/$ns/gid_map
	wait $ns
	check_out "6.12: uid 1000 of a namespace runs a setuid file of its uid 1 on its tmpfs, bound with 1 0 1: the namespace's root (the kernel's euid Prm secure)" \
		"0 0x1ffffffffff 1" fields euid Prm secure -- grep pid= $H/ut.out
	check_out "... BPF's" "0 0 2199023255551 2199023255551 1" recx_of decisions grep pid= $H/ut.out
	check_out "... and the namespace's root may empty its value (the guard: the owner up through the namespace, then down)" \
		"guard=ok" grep guard= $H/ut.out
}

case "$mode" in
kernel)
	fcapsctl setcap $H/capped 'cap_net_raw+ep'
	xattr_attacks "legacy v1"
	check_out "root running the file still gets only its sets" "0x2000 0x2000" \
		fields Eff Prm -- $H/capped status
	userns_kill
	cp $T $H/ktamper && fcapsctl setcap $H/ktamper 'cap_net_raw+ep'
	cp $T $H/ktamper_admin && fcapsctl setcap $H/ktamper_admin 'cap_net_raw,cap_sys_admin+ep'
	session_to_parent $H/ktamper kernel $H/ktamper_admin
	parked_parents ok "succeeds (no limit without BPF)"
	binfmt_legacy_files
	binfmt_register
	check_out "binfmt_misc: the kernel's credentials: the binary's pP under C, the interpreter's without" \
		"0x2000 0x800000" binfmt_prm
	# the audit record shows the value the exec was decided on (patch
	# "audit: log the file capabilities..."), not a second read of bprm->file
	cp -p $H/bin.fcc $H/bin2.fcc && setfattr -n security.capability -v $V2 $H/bin2.fcc
	check_out "audit: under binfmt_misc C the exec's record shows the binary's legacy value" \
		"fver=0 fp=0000000000002000 fi=0 fe=1" audit_caps $H/bin.fcc
	check_out "... without C, the interpreter's" \
		"fver=0 fp=0000000000800000 fi=0 fe=1" audit_caps $H/bin.fcn
	check_out "... a 6.1 v2 value under C: the binary's, as version 2" \
		"fver=2 fp=0000000000002000 fi=0 fe=1" audit_caps $H/bin2.fcc
	binfmt_unregister
	# a legacy value has no rootid to confine it: only CAP_SETFCAP in the
	# filesystem's own namespace writes one (SEMANTICS 1)
	: > $H/own_l && chown 1000:1000 $H/own_l
	check "uid 1000 as root of its own unshare -r cannot write a legacy value on its own file: EPERM" \
		eperm runas 1000 unshare -r setfattr -n security.capability -v $V1 $H/own_l
	check_out "... and the file has no value" "" val $H/own_l
	check "... while a 6.1 v2 value it may write (stored as v3, rootid 1000)" \
		runas 1000 unshare -r setfattr -n security.capability -v $V2 $H/own_l
	sysctl -qw kernel.fcaps.kill=0
	check "... with kill=0 the unshare -Ur sender passes" \
		sh -c "runas 1000 sleep 100 & t=\$!; sleep 0.2; runas 1000 unshare -r kill -0 \$t; r=\$?; kill \$t; exit \$r"
	sysctl -qw kernel.fcaps.kill=1
	# the article's removable-media attack: a value written elsewhere
	mount -o nosuid,ro /dev/vda /mnt
	check_out "nosuid ext4 image: uid 1000 gains nothing from good_v1" "0 0" \
		fields Prm secure -- runas 1000 /mnt/good_v1 status
	sysctl -qw kernel.fcaps.nosuid_ignore=1
	check_out "... and gains cap_net_raw with nosuid_ignore=1" "0x2000 1" \
		fields Prm secure -- runas 1000 /mnt/good_v1 status
	sysctl -qw kernel.fcaps.nosuid_ignore=0
	umount /mnt
	idmapped
	# an exec that grows pP clears what a setid exec clears of the
	# personality (PER_CLEAR_ON_SETID: ADDR_NO_RANDOMIZE among them)
	cp /usr/local/bin/fcaps_tamper $H/tamper_raw && fcapsctl setcap $H/tamper_raw 'cap_net_raw+ep'
	check_out "uid 1000 with ADDR_NO_RANDOMIZE runs a file that grows its pP: the flag cleared" \
		"personality-get: 00000000" runas 1000 /usr/local/bin/fcaps_tamper personality 40000 \
		$H/tamper_raw personality-get
	check_out "... root, whose pP the file narrows: the flag kept" "personality-get: 00040000" \
		/usr/local/bin/fcaps_tamper personality 40000 $H/tamper_raw personality-get
	check_out "... uid 1000 running a plain file: the flag kept" "personality-get: 00040000" \
		runas 1000 /usr/local/bin/fcaps_tamper personality 40000 /usr/local/bin/fcaps_tamper \
		personality-get
	;;
bpf)
	setfattr -n security.capability -v $V2 $H/capped
	mount -o nosuid,ro /dev/vda /mnt
	binfmt_files
	printf '%s\n' "/mnt/good_v1 hex:30039819002000000020000000000000" \
		"$H/interp cap_sys_nice+ep" \
		"$H/bin.fcc cap_net_raw+ep" "$H/bin.fcn cap_net_raw+ep" > $H/policy
	check "load --kernel-records on stock fails (no fcaps tracepoints), loading nothing" \
		sh -c '! fcapsctl load --kernel-records 2>/dev/null && [ ! -e /sys/fs/bpf/fcaps ]'
	step "load --mode enforce on stock" fcapsctl load --mode enforce --scan $H --policy $H/policy
	xattr_attacks "6.1 v2"
	binfmt_register
	binfmt_execs decisions
	binfmt_unregister
	# CAP_SETFCAP counts in pE only: uid 1000 holding it in pP alone (a 6.1
	# v2 value without the effective flag) is refused the empty value,
	# which only BPF's guard checks on 6.1
	cp /usr/bin/setfattr $H/setfattr_p
	setfattr -n security.capability -v 0x0000000200000080000000000000000000000000 $H/setfattr_p
	cp /usr/bin/setfattr $H/setfattr_e
	setfattr -n security.capability -v 0x0100000200000080000000000000000000000000 $H/setfattr_e
	: > $H/own_e && chown 1000:1000 $H/own_e
	check "uid 1000 holding cap_setfcap in pE may write an empty security.capability on its own file" \
		runas 1000 $H/setfattr_e -n security.capability $H/own_e
	before=$(val $H/capped)
	check "uid 1000 with cap_setfcap in pP only cannot write an empty security.capability" \
		eperm runas 1000 $H/setfattr_p -n security.capability $H/capped
	check_out "... the value is unchanged" "$before" val $H/capped
	# the guard reads a namespace's id maps past their five inline extents:
	# root of a namespace mapping six ranges may empty the value of a file
	# its sixth maps, and not of one it does not map; the exec decision
	# finds that namespace's root past them too (root there: every
	# capability in pP')
	: > $H/m6 && chown 1005:1005 $H/m6 && chmod 666 $H/m6
	: > $H/m7 && chown 1007:1007 $H/m7 && chmod 666 $H/m7
	unshare -U sh -c "sleep 1; setfattr -n security.capability $H/m6 && echo m6=0
		setfattr -n security.capability $H/m7 2>&1 | grep -q 'not permitted' && echo m7=eperm
		$H/plain status > $H/m.status" > $H/m.out &
	ns=$!
	sleep 0.3
	for f in uid_map gid_map; do
		printf '0 0 1\n1000 1000 1\n1001 1001 1\n1002 1002 1\n1003 1003 1\n1005 1005 1\n' > /proc/$ns/$f
	done
	wait $ns
	check_out "root of a namespace with six id ranges empties the value of a file its sixth maps, not of an unmapped one" \
		"m6=0 m7=eperm" sh -c "tr '\n' ' ' < $H/m.out | sed 's/ $//'"
	check_out "... runs a plain file as that namespace's root (legacy ret pP)" \
		"0 0 $(( (1 << 41) - 1 ))" rec_of decisions cat $H/m.status
	userns_kill
	check_out "nosuid ext4 image: BPF ignores good_v1 for uid 1000 (legacy ret pP)" "0 0 0" \
		rec_of decisions runas 1000 /mnt/good_v1 status
	fcapsctl set nosuid_ignore=1
	check_out "... and applies it with nosuid_ignore=1" "1 0 8192" \
		rec_of decisions runas 1000 /mnt/good_v1 status
	# the image mounted again as ext3: 6.12 makes a superblock with its
	# device number before it finds the device busy, and shuts it down
	mkdir -p $H/again
	check "the mounted image mounted again as ext3 fails" \
		sh -c "! mount -t ext3 -o ro /dev/vda $H/again 2>/dev/null"
	check_out "... and the mounted one's entries stay" "1 0 8192" \
		rec_of decisions runas 1000 /mnt/good_v1 status
	fcapsctl set nosuid_ignore=0
	# a capped file in an overlay's lower layer (a container's image):
	# its value is the layer's file's (6.12 finds the layer through
	# ovl_entry, 6.1 through ovl_inode.lowerpath)
	mkdir -p $H/ol $H/ou $H/ow $H/oo
	cp /usr/local/bin/fcaps_probe $H/ol/ocap && fcapsctl policy add $H/ol/ocap cap_net_raw+ep >/dev/null
	mount -t overlay o -o lowerdir=$H/ol,upperdir=$H/ou,workdir=$H/ow $H/oo
	check_out "an overlay's lower-layer file capped by the policy: BPF applies it (legacy ret pP)" \
		"1 0 8192" rec_of decisions runas 1000 $H/oo/ocap status
	check_out "... and caps root running it (no sethostname)" "0" \
		fields bat_sethostname -- $H/oo/ocap battery $$ 1
	umount $H/oo
	umount /mnt
	idmapped_bpf
	mount -o nosuid,ro /dev/vda /mnt
	fcapsctl unload >/dev/null
	# the guard restores 6.1's own checks: in shadow mode as well
	step "load --mode shadow on stock" fcapsctl load --mode shadow --scan $H
	check "shadow: uid 1000 still cannot remove security.capability: EPERM" \
		eperm runas 1000 setfattr -x security.capability $H/capped
	fcapsctl unload >/dev/null
	# the same signal rule when nothing is recorded (the cheapest path)
	step "load --mode enforce --record none" fcapsctl load --mode enforce --record none --scan $H
	userns_kill
	cp /usr/local/bin/fcaps_probe $H/nssuid && chmod 6755 $H/nssuid
	check_out "root of a namespace runs a setuid-root file it does not map: root there, no AT_SECURE (euid suid secure)" \
		"0 0 0" fields euid suid secure -- runas 1000 unshare -r $H/nssuid status
	check_out "... and no record was written" "0" \
		sh -c "fcapsctl status --json | sed 's/.*\"decisions\":\([0-9]*\).*/\1/'"
	fcapsctl unload
	umount /mnt
	;;
sync)
	mount /dev/vda /mnt
	fcapsctl setcap $H/capped 'cap_net_raw+ep'
	ln $H/capped $H/link
	check "load --mode shadow --kernel-records --scan" \
		fcapsctl load --mode shadow --kernel-records --scan $H --scan /mnt
	check_out "a hard link made before the scan: BPF sees the value (legacy ret pP)" "1 0 8192" \
		rec_of decisions runas 1000 $H/link status
	check_out "... as the kernel does" "1 0 8192" rec_of kdecisions runas 1000 $H/link status
	mv $H/plain $H/capped
	check_out "an uncapped file renamed over the capped one after the scan: BPF sees none" "0 0 0" \
		rec_of decisions runas 1000 $H/capped status
	check_out "... as the kernel does" "0 0 0" rec_of kdecisions runas 1000 $H/capped status
	binfmt_legacy_files
	binfmt_register
	binfmt_execs decisions
	binfmt_execs kdecisions
	binfmt_unregister
	# an exec inside a user namespace: root there is the namespace's root
	# (6.1's make_kuid(ns, 0)), for AT_SECURE and for 6.1's root rules
	fcapsctl setcap $H/link 'cap_net_raw+ep'
	check_out "uid 1000 as root of its own namespace runs a v1 file: its sets, AT_SECURE 0 (BPF)" \
		"1 0 8192 8192 0" recx_of decisions runas 1000 unshare -r $H/link status
	check_out "... as the kernel decides" "1 0 8192 8192 0" \
		recx_of kdecisions runas 1000 unshare -r $H/link status
	cp /usr/local/bin/fcaps_probe $H/nsplain
	check_out "... and a file without a value: root there, every capability (BPF)" \
		"0 0 2199023255551 2199023255551 0" recx_of decisions runas 1000 unshare -r $H/nsplain status
	check_out "... as the kernel decides" "0 0 2199023255551 2199023255551 0" \
		recx_of kdecisions runas 1000 unshare -r $H/nsplain status
	# bprm_fill_uid(): setid bits whose owner or group the namespace does
	# not map are ignored (a setuid-root file run inside unshare -r)
	cp /usr/local/bin/fcaps_probe $H/nssuid && chmod 6755 $H/nssuid
	check_out "root of a namespace runs a setuid-root file it does not map: no setid, AT_SECURE 0 (BPF)" \
		"0 0 2199023255551 2199023255551 0" recx_of decisions runas 1000 unshare -r $H/nssuid status
	check_out "... as the kernel decides" "0 0 2199023255551 2199023255551 0" \
		recx_of kdecisions runas 1000 unshare -r $H/nssuid status
	# ... both ids, not either: a file whose owner or group alone it maps
	cp /usr/local/bin/fcaps_probe $H/nssuid1 && chown 0:1000 $H/nssuid1 && chmod 4755 $H/nssuid1
	cp /usr/local/bin/fcaps_probe $H/nssgid0 && chown 1000:0 $H/nssgid0 && chmod 2755 $H/nssgid0
	for f in nssuid1 nssgid0; do
		check_out "... $f, whose owner or group alone it maps: no setid either (BPF)" \
			"0 0 2199023255551 2199023255551 0" recx_of decisions runas 1000 unshare -r $H/$f status
		check_out "... as the kernel decides" "0 0 2199023255551 2199023255551 0" \
			recx_of kdecisions runas 1000 unshare -r $H/$f status
	done
	# mnt_may_suid(): a mount of another mount namespace, reached through
	# /proc/PID/root, grants nothing, as nosuid would not
	rm -f $H/mnt.out
	unshare -m sh -c "mkdir -p /tmp/mx && mount -t tmpfs mx /tmp/mx &&
		cp /usr/local/bin/fcaps_probe /tmp/mx/x && fcapsctl setcap /tmp/mx/x cap_net_raw+ep &&
		echo ready > $H/mnt.out && sleep 60" &
	m=$!
	for i in 1 2 3 4 5; do wait_line ready $H/mnt.out && break; done
	check_out "root runs a capped file on a mount of another mount namespace: ignored (BPF)" \
		"0 0 2199023255551 2199023255551 0" recx_of decisions /proc/$m/root/tmp/mx/x status
	check_out "... as the kernel decides" "0 0 2199023255551 2199023255551 0" \
		recx_of kdecisions /proc/$m/root/tmp/mx/x status
	kill $m 2>/dev/null
	wait $m 2>/dev/null
	# a 6.1 v3 value (rootid 1000) read through an overlay that uid 1000's
	# namespace mounted: the rootid is the layer's, as the overlay's read
	# converts it there and back; root under SECURE_NOROOT gets the sets
	mkdir -p $H/ul $H/uu $H/uw $H/uo && cp /usr/local/bin/fcaps_probe $H/ul/v3 &&
		chown -R 1000:1000 $H/ul $H/uu $H/uw $H/uo
	runas 1000 unshare -r setfattr -n security.capability -v $V2 $H/ul/v3
	ovl_exec() {
		runas 1000 unshare -rm sh -c "mount -t overlay o -o lowerdir=$H/ul,upperdir=$H/uu,workdir=$H/uw $H/uo &&
			/usr/local/bin/fcaps_probe --securebits 1 exec $H/uo/v3 status"
	}
	check_out "a v3 value through an overlay mounted in a user namespace: its sets there (BPF)" \
		"0 0 8192 8192 0" recx_of decisions ovl_exec
	check_out "... as the kernel decides" "0 0 8192 8192 0" recx_of kdecisions ovl_exec
	# inode reuse on ext4: a deleted capped file's number goes to a new file
	cp /usr/local/bin/fcaps_probe /mnt/reuse && fcapsctl setcap /mnt/reuse 'cap_net_raw+ep'
	ino=$(stat -c %i /mnt/reuse)
	check_out "the capped ext4 file is in the policy" "size=16 v1 cap_net_raw=ep" pol /mnt/reuse
	rm /mnt/reuse
	n=0
	while [ $n -lt 50 ]; do
		cp /usr/local/bin/fcaps_probe /mnt/new$n
		[ "$(stat -c %i /mnt/new$n)" = "$ino" ] && break
		n=$((n + 1))
	done
	check "a new file got the deleted file's inode number $ino" [ "$(stat -c %i /mnt/new$n)" = "$ino" ]
	check_out "... and inherits nothing (legacy ret pP)" "0 0 0" \
		rec_of decisions runas 1000 /mnt/new$n status
	# the kernel's own removal: a chown drops the value (cap_inode_killpriv)
	cp /usr/local/bin/fcaps_probe $H/kp && fcapsctl setcap $H/kp 'cap_net_raw+ep'
	check_out "a capped file: BPF sees the value (legacy ret pP)" "1 0 8192" \
		rec_of decisions runas 1000 $H/kp status
	chown 1000 $H/kp
	check_out "chown drops the value (the kernel's own removal): BPF follows" "0 0 0" \
		rec_of decisions runas 1000 $H/kp status
	check_out "... as the kernel does" "0 0 0" rec_of kdecisions runas 1000 $H/kp status
	# an inode evicted from memory while it has links keeps its entry
	sync
	echo 2 > /proc/sys/vm/drop_caches
	check_out "ext4: a capped file's inode evicted from memory: BPF still sees the value" \
		"1 0 8192" rec_of decisions runas 1000 /mnt/good_v1 status
	check_out "... as the kernel does" "1 0 8192" rec_of kdecisions runas 1000 /mnt/good_v1 status
	# a superblock gone: a new tmpfs gets its device and inode numbers
	mkdir -p $H/t && mount -t tmpfs tmpfs $H/t
	cp /usr/local/bin/fcaps_probe $H/t/p && fcapsctl setcap $H/t/p 'cap_net_raw+ep'
	key=$(stat -c %d:%i $H/t/p)
	umount $H/t && mount -t tmpfs tmpfs $H/t && cp /usr/local/bin/fcaps_probe $H/t/p
	check "a new tmpfs got the old one's device and inode numbers ($key)" \
		[ "$(stat -c %d:%i $H/t/p)" = "$key" ]
	check_out "... and inherits nothing (legacy ret pP)" "0 0 0" rec_of decisions runas 1000 $H/t/p status
	check_out "the unmount left other filesystems' entries alone" "size=16 v1 cap_net_raw=ep" \
		pol $H/link
	umount $H/t
	# overlayfs: the value removed through the overlay
	mkdir -p $H/lower $H/upper $H/work $H/ovl
	cp /usr/local/bin/fcaps_probe $H/lower/ocap && fcapsctl setcap $H/lower/ocap 'cap_net_raw+ep'
	mount -t overlay overlay -o lowerdir=$H/lower,upperdir=$H/upper,workdir=$H/work $H/ovl
	out=$(fcapsctl policy scan $H/ovl 2>&1); rc=$?
	check "policy scan of an overlay is refused (BPF keys its files by their layers)" [ "$rc" = 1 ]
	check_contains "... naming the layers" "on an overlay: give its layers" "$out"
	check_out "overlay file, not scanned: BPF sees its layer's value" "1 0 8192" \
		rec_of decisions runas 1000 $H/ovl/ocap status
	check_out "... as the kernel does" "1 0 8192" rec_of kdecisions runas 1000 $H/ovl/ocap status
	step "root removes it through the overlay" setfattr -x security.capability $H/ovl/ocap
	check_out "... and BPF follows (legacy ret pP)" "0 0 0" rec_of decisions runas 1000 $H/ovl/ocap status
	check_out "... as the kernel does" "0 0 0" rec_of kdecisions runas 1000 $H/ovl/ocap status
	umount $H/ovl
	# an overlay of ext4 under tmpfs (no xino), mounted after the load: its
	# inode numbers collide (a directory's come from a counter), and uid
	# 1000 can free them at will
	mkdir -p $H/u2 $H/w2 $H/o2
	mount -t overlay overlay -o lowerdir=/mnt,upperdir=$H/u2,workdir=$H/w2 $H/o2
	mkdir $H/o2/pub && chmod 1777 $H/o2/pub
	check_out "ext4 under an overlay mounted after the load: BPF keys good_v1 by its layer" \
		"1 0 8192" rec_of decisions runas 1000 $H/o2/good_v1 status
	check_out "... as the kernel does" "1 0 8192" rec_of kdecisions runas 1000 $H/o2/good_v1 status
	L=$(( $(stat -c %i $H/o2/good_v1) + 64 ))
	runas 1000 sh -c "cd $H/o2/pub; i=0; while [ \$i -lt $L ]; do mkdir d; rmdir d; : > f; rm f; i=\$((i + 1)); done"
	check_out "uid 1000 frees overlay inode numbers 1 to $L: the entry holds" "1 0 8192" \
		rec_of decisions runas 1000 $H/o2/good_v1 status
	check_out "... as the kernel's value does" "1 0 8192" rec_of kdecisions runas 1000 $H/o2/good_v1 status
	umount $H/o2
	fcapsctl unload
	umount /mnt
	# a full policy map: the write it cannot hold is counted and raised
	mkdir -p $H/full
	step "load --policy-max 4" fcapsctl load --mode shadow --policy-max 4 --scan $H/full
	check "--policy-max 0 is a usage error (2)" sh -c 'fcapsctl load --policy-max 0; [ $? = 2 ]'
	for i in 1 2 3 4 5 6; do
		cp /usr/local/bin/fcaps_probe $H/full/f$i && fcapsctl setcap $H/full/f$i 'cap_net_raw+ep'
	done
	check_out "four values fill the map, two are lost (policy_lost)" '"policy_lost":2' \
		sh -c 'fcapsctl status --json 2>/dev/null | grep -o "\"policy_lost\":[0-9]*"'
	check "... and status raises the alarm" sh -c 'fcapsctl status 2>&1 >/dev/null | grep -q ALARM'
	check_out "... while the four it holds are there" 4 sh -c 'fcapsctl policy list | grep -c v1'
	fcapsctl unload
	# a flood from user namespaces: root there may write 6.1 values on its
	# own files, each one mirrored; they fill policy61, never the map of
	# legacy values, which only CAP_SETFCAP over the filesystem writes
	mkdir -p $H/flood && chmod 1777 $H/flood
	step "load --policy-max 4" fcapsctl load --mode shadow --policy-max 4 --scan $H/flood
	for i in 1 2 3 4 5 6; do
		runas 1000 sh -c ": > $H/flood/u$i && unshare -r setfattr -n security.capability -v $V2 $H/flood/u$i"
	done
	fill() { fcapsctl status --json 2>/dev/null | sed "s/.*\"$1\":\([0-9]*\).*/\1/"; }
	check_out "uid 1000's six 6.1 values fill policy61 (4 kept)" "4" fill policy61
	cp /usr/local/bin/fcaps_probe $H/flood/adm && fcapsctl setcap $H/flood/adm 'cap_net_raw+ep'
	check_out "... and an administrator's legacy value after them is mirrored all the same" \
		"size=16 v1 cap_net_raw=ep" pol $H/flood/adm
	check_out "... and decides (legacy ret pP)" "1 0 8192" rec_of decisions runas 1000 $H/flood/adm status
	check "a reload over the flooded tree loads, warning of what policy61 cannot hold" \
		sh -c "fcapsctl unload >/dev/null && fcapsctl load --policy-max 4 --scan $H/flood 2>&1 | grep -q 'policy61 is full'"
	check_out "... the legacy value mirrored first" "size=16 v1 cap_net_raw=ep" pol $H/flood/adm
	fcapsctl unload
	;;
faults)
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	echo "$H/capped hex:30039819002000000020000000" > $H/bad.policy	# malformed: 13 bytes
	runs() { runas 1000 $H/capped status >/dev/null 2>&1; }
	check "without BPF the file runs" runs
	for step in open loaded sync-attached policy-written attached pin-link pinned renamed; do
		FCAPS_FAULT=$step fcapsctl load --mode enforce --policy $H/bad.policy >/dev/null 2>&1
		check "load killed at '$step': nothing enforces (the file runs)" runs
		check "... fcapsctl status does not report it loaded and armed" \
			sh -c '! fcapsctl status --json 2>/dev/null | grep -q "\"armed\":1"'
		check "... and the next load cleans up and enforces (EPERM)" \
			sh -c "fcapsctl load --mode enforce --policy $H/bad.policy >/dev/null && ! runas 1000 $H/capped status >/dev/null 2>&1"
		fcapsctl unload >/dev/null
	done
	for step in disarmed moved; do
		fcapsctl load --mode enforce --policy $H/bad.policy >/dev/null
		FCAPS_FAULT=$step fcapsctl unload >/dev/null 2>&1
		check "unload killed at '$step': nothing enforces any more" runs
		check "... and the next unload removes every pin" \
			sh -c 'fcapsctl unload >/dev/null && [ ! -e /sys/fs/bpf/fcaps ] && [ ! -e /sys/fs/bpf/fcaps_old ]'
	done
	# policy import --replace killed at every step: the old policy or the new
	echo "$H/capped hex:30039819002000000020000000000000" > $H/good.policy
	cp /usr/local/bin/fcaps_probe $H/other
	echo "$H/other hex:30039819002000000020000000" >> $H/bad.policy
	for step in replace-next-gen:old replace-written:old replace-switched:new; do
		fcapsctl load --mode enforce --policy $H/bad.policy >/dev/null
		FCAPS_FAULT=${step%%:*} fcapsctl policy import --replace $H/good.policy >/dev/null 2>&1
		if [ "${step#*:}" = old ]; then
			check "replace killed at '${step%%:*}': the old policy holds (EPERM)" sh -c '! runs'
			check_out "... both old entries and no new one listed" "malformed malformed" \
				sh -c "fcapsctl policy list | cut -d' ' -f4 | sort | tr '\n' ' ' | sed 's/ \$//'"
		else
			check "replace killed at '${step%%:*}': the new policy holds (the file runs)" runs
			check_out "... one entry, the new one" "v1" \
				sh -c "fcapsctl policy list | cut -d' ' -f4"
		fi
		step "... and the next replace completes" fcapsctl policy import --replace $H/good.policy
		check_out "... leaving exactly the new policy" "v1" sh -c "fcapsctl policy list | cut -d' ' -f4"
		fcapsctl unload >/dev/null
	done
	# a value written while a replace is pending goes to both generations
	fcapsctl load --mode enforce --policy $H/bad.policy >/dev/null
	FCAPS_FAULT=replace-written fcapsctl policy import --replace $H/good.policy >/dev/null 2>&1
	cp /usr/local/bin/fcaps_probe $H/mid && fcapsctl setcap $H/mid 'cap_net_raw+ep'
	check_out "a value written while a replace is pending is in both generations" 2 \
		sh -c "bpftool -j map dump pinned /sys/fs/bpf/fcaps/policy | tr '{' '\n' | grep -c '\"ino\":$(stat -c %i $H/mid)[,}]'"
	step "... and the replace completes" fcapsctl policy import --replace $H/good.policy
	step "policy del after a replace" fcapsctl policy del $H/capped
	check_out "... leaves no entry of the file" "" sh -c "fcapsctl policy list | grep ' ino=$(stat -c %i $H/capped) '"
	fcapsctl unload >/dev/null
	# --record none: a killed unload that disarmed leaves nothing refused
	fcapsctl load --mode enforce --record none >/dev/null
	FCAPS_FAULT=disarmed fcapsctl unload >/dev/null 2>&1
	runas 1000 sleep 100 & t=$!
	sleep 0.2
	check "unload (--record none) killed at 'disarmed': signals are refused no more" \
		runas 1000 unshare -r kill -0 $t
	kill $t; wait $t 2>/dev/null
	fcapsctl unload >/dev/null
	check_out "no fcaps program left" "0" sh -c 'bpftool prog show | grep -c "name fcaps_"'
	sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1
	;;
ceiling)
	# busybox applets through symlinks to capped copies: the applet runs in
	# the process that exec'd the capped file
	mkdir -p $H/c
	P=/usr/local/bin/fcaps_probe
	cp /bin/busybox $H/c/bb_raw && fcapsctl setcap $H/c/bb_raw 'cap_net_raw+ep'
	cp /bin/busybox $H/c/bb_admin && fcapsctl setcap $H/c/bb_admin 'cap_sys_admin,cap_dac_override+ep'
	mkdir -p $H/c/raw $H/c/admin
	for a in hostname chown cat; do
		ln -sf $H/c/bb_raw $H/c/raw/$a
		ln -sf $H/c/bb_admin $H/c/admin/$a
	done
	: > $H/c/secret && chown 1000:1000 $H/c/secret && chmod 000 $H/c/secret
	ops() {	# what root may do running $1: sethostname, chown, read a 000 file
		p=$H/c/$1
		r1=ok; $p/hostname fcaps-$1 2>/dev/null || r1=EPERM
		r2=ok; $p/chown 0:0 $H/c/secret 2>/dev/null || r2=EPERM
		chown 1000:1000 $H/c/secret
		r3=ok; $p/cat $H/c/secret 2>/dev/null || r3=denied
		echo "$r1 $r2 $r3"
	}
	live() { sleep 0.5; fcapsctl status --json | sed 's/.*"ceilings_live":\([0-9]*\).*/\1/'; }
	check_out "kernel: root running a cap_net_raw file: no sethostname, chown or DAC override" \
		"EPERM EPERM denied" ops raw
	check_out "kernel: root running a cap_sys_admin,cap_dac_override file: sethostname and DAC" \
		"ok EPERM ok" ops admin
	# in a user namespace of its own a capped process holds every capability
	# (6.1 grants them there), but still none over the initial namespace;
	# cap_setfcap: 6.1 lets it map root to itself only with that in pE
	cp /usr/local/bin/fcaps_probe $H/c/probe_ns &&
		fcapsctl setcap $H/c/probe_ns 'cap_net_raw,cap_setfcap+ep'
	nsops() { fields bat_chroot bat_sethostname bat_settime -- $H/c/probe_ns --userns battery $$ 1; }
	check_out "kernel: a capped root process in a new user namespace: chroot there, not sethostname or settime" \
		"1 0 0" nsops
	# without cap_setfcap it may not map root as root there: 6.1 reads that
	# from pE when the namespace is made (verify_root_map())
	cp /usr/local/bin/fcaps_probe $H/c/probe_raw && fcapsctl setcap $H/c/probe_raw 'cap_net_raw+ep'
	rootmap() { fields userns_errno userns_step -- $H/c/probe_raw --userns status; }
	check_out "kernel: a capped root process without cap_setfcap cannot map root as root in a new user namespace (EPERM at uid_map)" \
		"1 2" rootmap
	# over a namespace its euid owns, cap_capable() grants without pE: a
	# capped root enters one (setns asks CAP_SYS_ADMIN there)
	ownns() {
		$T --userns hold 30 > $H/om.out 2>&1 & h=$!
		for i in $(seq 25); do grep -q "hold: ok" $H/om.out && break; sleep 0.2; done
		$H/c/ktamper setns $h
		kill $h; wait $h 2>/dev/null
	}
	# signals and scheduling compare the capped sets: root's own processes
	# hold more than a capped root process (an uncapped probe may)
	pairs() {
		sleep 100 & t=$!
		echo "$(fields kill errno -- $H/c/probe_raw kill $t 0 | tr ' ' /)" \
		     "$(fields sched errno -- $H/c/probe_raw sched $t nice | tr ' ' /)" \
		     "$(fields sched errno -- $H/c/probe_raw sched $t ioprio | tr ' ' /)" \
		     "$(fields kill -- $P kill $t 0)"
		kill $t; wait $t 2>/dev/null
	}
	check_out "kernel: a capped root process cannot signal or renice root's processes (EPERM), an uncapped one can" \
		"-1/1 -1/1 -1/1 0" pairs
	# and the target's: one capped root process to another running the
	# same file (the same sets, where the target's live ones are root's)
	cpair() {
		$H/c/probe_raw pause > /dev/null & t=$!
		sleep 0.3
		echo "$(fields kill errno -- $H/c/probe_raw kill $t 0 | tr ' ' /)" \
		     "$(fields sched errno -- $H/c/probe_raw sched $t nice | tr ' ' /)"
		kill $t; wait $t 2>/dev/null
	}
	check_out "kernel: a capped root process signals and renices another with its own sets" \
		"0 0" cpair
	# SIGIO the same way (the target's capped pP, not its live one)
	cp $T $H/c/ktamper && fcapsctl setcap $H/c/ktamper 'cap_net_raw+ep'
	csigio() {
		$H/c/probe_raw pause > /dev/null & t=$!
		sleep 0.3
		$H/c/ktamper sigio $t 9
		kill $t 2>/dev/null; wait $t 2>/dev/null
	}
	check_out "kernel: a capped root process's SIGKILL by SIGIO at another with its own sets: delivered" \
		"sigio: delivered" csigio
	check_out "kernel: a capped root process enters a namespace its euid owns (CAP_SYS_ADMIN there is the owner's)" \
		"setns: ok" ownns
	# cap_sys_nice in the capped pE renices root's own processes
	cp /usr/local/bin/fcaps_probe $H/c/probe_nice && fcapsctl setcap $H/c/probe_nice 'cap_sys_nice+ep'
	npair() {
		sleep 100 & t=$!
		echo "$(fields sched -- $H/c/probe_nice sched $t nice)" \
		     "$(fields sched -- $H/c/probe_nice sched $t ioprio)"
		kill $t; wait $t 2>/dev/null
	}
	check_out "kernel: a capped root process with cap_sys_nice renices and ioprios root's processes" \
		"0 0" npair
	# what a capped root process passes on: an exec under no_new_privs stays
	# within its sets; it cannot raise an ambient capability or set
	# securebits without having the capability
	chain() { fields bat_chroot bat_sethostname -- $H/c/probe_ns $1 exec $P battery $$ 1; }
	later() {
		echo "$(chain --nnp | tr ' ' /) $(chain --status | tr ' ' /)" \
			"$(fields ambient errno -- $H/c/probe_ns ambient 21 | tr ' ' /)" \
			"$(fields securebits_set errno -- $H/c/probe_ns securebits 10 | tr ' ' /)"
	}
	check_out "kernel: capped root execs a plain file: under nnp capped (0/0), else root (1/1); no ambient sys_admin, no securebits" \
		"0/0 1/1 -1/1 -1/1" later
	# pP and pE apart: an ambient capability needs it in pP; securebits,
	# and pI grown past pP, need cap_setpcap in pE; mapping root as root,
	# cap_setfcap in pE
	cp /usr/local/bin/fcaps_probe $H/c/probe_p &&
		fcapsctl setcap $H/c/probe_p 'cap_net_raw+ep cap_net_bind_service,cap_setpcap+p'
	cp /usr/local/bin/fcaps_probe $H/c/probe_sfp &&
		fcapsctl setcap $H/c/probe_sfp 'cap_net_raw+ep cap_setfcap+p'
	edges() {
		echo "$(fields ambient errno -- $H/c/probe_p ambient 10 | tr ' ' /)" \
		     "$(fields securebits_set errno -- $H/c/probe_p securebits 10 | tr ' ' /)" \
		     "$(fields inherit -- $H/c/probe_p --inherit 21 status)" \
		     "$(fields userns_errno userns_step -- $H/c/probe_sfp --userns status | tr ' ' /)"
	}
	check_out "kernel: capped root raises a capability of its pP alone as ambient (0); with cap_setpcap in pP alone no securebits (EPERM) nor pI grown (-1); with cap_setfcap in pP alone no root mapped as root (EPERM at uid_map)" \
		"0 -1/1 -1 1/2" edges
	# capability 40, the last: in pI before the capped exec, still not
	# raisable as ambient outside the capped pP
	cap40() { fields inherit ambient errno -- $P --inherit 40 exec $H/c/probe_p ambient 40; }
	check_out "kernel: capped root cannot raise capability 40 (in pI, not in its pP) as ambient (EPERM)" \
		"0 -1 1" cap40
	# capability 40 asked by capable(): clone3's set_tid wants it (or
	# cap_sys_admin) over the pid namespace
	settid() { fields settid errno -- "$@" settid; }
	check_out "kernel: capped root cannot pick its child's pid (clone3 set_tid: capability 40): EPERM" \
		"-1 1" settid $H/c/probe_raw
	check_out "... an uncapped root can" "0" settid $P
	# an ambient capability carried through an exec under no_new_privs:
	# pP' is the capped pP, pE' all of it, pA' kept
	ambexec() {
		fields ambient bat_net_bind bat_net_raw bat_sethostname -- \
			$H/c/probe_p --ambient 10 --nnp exec $P battery $$ 1
	}
	check_out "kernel: capped root with ambient cap_net_bind_service execs a plain file under nnp: bind and raw, no sethostname" \
		"0 1 1 0" ambexec
	# where pA decides pE': root under SECBIT_NOROOT execs a plain file
	# and keeps its ambient capability alone (pE made to hold cap_setpcap
	# and cap_net_bind_service first)
	noroot() {
		fields securebits_set ambient bat_net_bind bat_net_raw -- \
			$H/c/probe_p --eff 2500 --securebits 1 --ambient 10 exec $P battery $$ 1
	}
	check_out "kernel: capped root, SECBIT_NOROOT, ambient cap_net_bind_service, execs a plain file: bind (pA'), not raw" \
		"0 0 1 0" noroot
	# the other way: raised before the capped exec, which clears pA, it is
	# not there for the plain exec after it
	ambdrop() {
		fields ambient securebits_set bat_net_bind bat_net_raw -- \
			$P --ambient 10 exec $H/c/probe_p --eff 2500 --securebits 1 exec $P battery $$ 1
	}
	check_out "kernel: an ambient capability raised before a capped exec is gone after it (SECBIT_NOROOT, a plain exec: no bind, no raw)" \
		"0 0 0 0" ambdrop
	# ptrace compares pP with pP, each capped; CAP_SYS_PTRACE counts only in pE
	cp /usr/local/bin/fcaps_probe $H/c/probe_tp &&
		fcapsctl setcap $H/c/probe_tp 'cap_net_raw+ep cap_sys_ptrace+p'
	tracing() {
		$H/c/probe_raw pause > /dev/null & t1=$!
		$H/c/probe_ns pause > /dev/null & t2=$!
		sleep 0.3
		echo "$(fields bat_ptrace -- $H/c/probe_raw battery $$ $t1)" \
		     "$(fields bat_ptrace -- $H/c/probe_raw battery $$ $t2)" \
		     "$(fields bat_ptrace rbat_ptrace -- $H/c/probe_tp battery $$ $$ | tr ' ' /)"
		kill $t1 $t2; wait $t1 $t2 2>/dev/null
	}
	check_out "kernel: ptrace by a capped root process: a tracee capped the same (1), one capped with more (0); cap_sys_ptrace in pP alone (0), raised to pE (1)" \
		"1 0 0/1" tracing
	# an exec that grows pP leaves the process (and its children) non-dumpable:
	# tracing its own child then needs CAP_SYS_PTRACE in pE
	dumpable() {
		echo "$(fields trace -- $H/c/probe_raw exec $H/c/probe_tp trace $P status)" \
		     "$(fields trace -- $H/c/probe_tp exec $H/c/probe_raw trace $P status)" \
		     "$(fields trace -- $H/c/probe_raw exec $H/c/probe_tp exec $H/c/probe_raw trace $P status)" \
		     "$(fields trace -- $H/c/probe_raw exec $H/c/probe_tp --dumpable trace $P status)"
	}
	check_out "kernel: a capped root whose exec grew pP cannot trace its own child (-1); one whose pP shrank can (0), also after growing first (0), and one made dumpable by prctl (0)" \
		"-1 0 0 0" dumpable
	# capset cannot put into pI what the capped sets lack, so an exec of a
	# file whose fI holds it gains nothing either
	cp /usr/local/bin/fcaps_probe $H/c/fi_admin && fcapsctl setcap $H/c/fi_admin 'cap_sys_admin+ei'
	inherit() { fields inherit bat_sethostname -- $H/c/probe_ns --inherit 21 exec $H/c/fi_admin battery $$ 1; }
	check_out "kernel: capped root cannot add cap_sys_admin to pI, nor gain it through an fI file" \
		"-1 0" inherit
	cp $T $H/c/ktamper_admin && fcapsctl setcap $H/c/ktamper_admin 'cap_net_raw,cap_sys_admin+ep'
	# page 0 (below vm.mmap_min_addr): cap_mmap_addr() asks cap_capable()
	# for CAP_SYS_RAWIO itself, past lsm/capable
	cp /usr/local/bin/fcaps_probe $H/c/probe_rawio && fcapsctl setcap $H/c/probe_rawio 'cap_sys_rawio+ep'
	cp /usr/local/bin/fcaps_probe $H/c/probe_rawio_p &&
		fcapsctl setcap $H/c/probe_rawio_p 'cap_net_raw+ep cap_sys_rawio+p'
	lowmap() { echo "$(fields bat_mmap_low -- $H/c/probe_raw battery $$ 1)" \
			"$(fields bat_mmap_low -- $H/c/probe_rawio battery $$ 1)" \
			"$(fields bat_mmap_low -- $P battery $$ 1)" \
			"$(fields bat_mmap_low -- $H/c/probe_rawio_p battery $$ 1)"; }
	check_out "kernel: page 0 mapped by root running a cap_net_raw file (0), a cap_sys_rawio one (1), plain (1), cap_sys_rawio in pP alone (0)" \
		"0 1 1 0" lowmap
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	check_out "no rules at all: root keeps everything" "ok ok ok" ops raw
	step "BPF enforce, kernel rules off" fcapsctl load --mode enforce --scan $H/c
	check_out "BPF ceiling: the same refusals as the kernel" \
		"EPERM EPERM denied" ops raw
	check_out "BPF ceiling: the same grants as the kernel" "ok EPERM ok" ops admin
	check_out "BPF ceiling: not carried into a new user namespace, kept over the initial one" \
		"1 0 0" nsops
	check_out "BPF ceiling: no root mapped as root without cap_setfcap" "1 2" rootmap
	check_out "BPF ceiling: a namespace its euid owns entered, the same" "setns: ok" ownns
	check_out "BPF ceiling: the pair rules compare the capped sets" "-1/1 -1/1 -1/1 0" pairs
	check_out "BPF ceiling: the target's capped sets too, the same" "0 0" cpair
	check_out "BPF ceiling: SIGIO at the target's capped sets, the same" "sigio: delivered" csigio
	check_out "BPF ceiling: cap_sys_nice in the capped pE, the same" "0 0" npair
	check_out "BPF ceiling: the same across an exec, for ambient and for securebits" \
		"0/0 1/1 -1/1 -1/1" later
	# in enforce mode the exec's record is the enforced decision: from the
	# capped sets (pP' within cap_net_raw under nnp), not the live ones
	check_out "BPF ceiling: the record of a capped exec under nnp holds the capped pP' (legacy 0, ret 0, pP 8192)" \
		"0 0 8192" rec_of decisions $H/c/probe_raw --nnp exec $P status
	check_out "BPF ceiling: the same refusal to grow pI, and nothing through the fI file" \
		"-1 0" inherit
	check_out "BPF ceiling: page 0 mapped as on the kernel path (lsm/mmap_addr)" "0 1 1 0" lowmap
	# a capped process that lives on: in enforce mode page 0 is refused and
	# the bound itself is not below it; once the mode is shadow, nothing
	maps() {	# MODE: switch to it, then let a capped holder map
		$H/c/probe_raw hold > $H/hold.out & h=$!
		wait_line hold_ready=1 $H/hold.out
		fcapsctl mode $1 > /dev/null
		kill -USR1 $h; wait $h
		echo $(sed -n 's/^hold_sethostname=\([-0-9]*\).*/\1/p' $H/hold.out) \
			$(sed -n 's/^hold_mmap_low=\([-0-9]*\) hold_mmap_min=\([-0-9]*\).*/\1 \2/p' $H/hold.out)
	}
	check_out "BPF ceiling, a capped process: no sethostname, page 0 refused, a page at vm.mmap_min_addr mapped" \
		"-1 0 1" maps enforce
	check_out "... and in shadow mode, where ceilings only record, both allowed" "0 1 1" maps shadow
	# the same for every other program that reads a ceiling: a holder
	# capped to raw+ptrace(pP) by an exec that grew its pP (non-dumpable)
	shadowed() {	# MODE
		sleep 100 & v=$!
		fcapsctl mode enforce > /dev/null
		$H/c/probe_raw exec $H/c/probe_tp hold $v > $H/hold2.out & h=$!
		wait_line hold_ready=1 $H/hold2.out
		fcapsctl mode $1 > /dev/null
		kill -USR1 $h; wait $h
		kill $v; wait $v 2>/dev/null
		fields ptrace traceme trace userns_step inherit securebits_set -- cat $H/hold2.out
	}
	check_out "BPF ceiling, a capped process: ptrace of root's, traceme by an uncapped child, tracing its own child, root mapped as root, pI grown, securebits: each refused" \
		"-1 -1 -1 2 -1 -1" shadowed enforce
	check_out "... and in shadow mode, each allowed" "0 0 0 0 0 0" shadowed shadow
	# an exec in shadow mode drops the ceiling its credentials were copied
	# with, as the kernel gives a plain root file root's sets back
	holdexec() {
		fcapsctl mode enforce > /dev/null
		$H/c/probe_raw hold-exec $P hold > $H/he.out & h=$!
		wait_line hold_ready=1 $H/he.out
		fcapsctl mode shadow > /dev/null
		kill -USR1 $h
		for i in $(seq 50); do [ "$(grep -c hold_ready=1 $H/he.out)" = 2 ] && break; sleep 0.1; done
		fcapsctl mode enforce > /dev/null
		kill -USR1 $h; wait $h
		sed -n 's/^hold_sethostname=\([-0-9]*\).*/\1/p' $H/he.out
	}
	check_out "BPF ceiling: a capped root's exec of a plain root file in shadow mode: root again once enforce is back" \
		0 holdexec
	fcapsctl mode enforce > /dev/null
	check_out "BPF ceiling: pP and pE apart, the same" "0 -1/1 -1 1/2" edges
	check_out "BPF ceiling: capability 40 not raisable as ambient, the same" "0 -1 1" cap40
	check_out "BPF ceiling: no clone3 set_tid (capable() of capability 40), the same" \
		"-1 1" settid $H/c/probe_raw
	check_out "... an uncapped root can" "0" settid $P
	check_out "BPF ceiling: an ambient capability through an exec under nnp, the same" \
		"0 1 1 0" ambexec
	check_out "BPF ceiling: ptrace compares the capped sets, the same" "1 0 0/1" tracing
	check_out "BPF ceiling: non-dumpable after an exec that grew the capped pP, the same" \
		"-1 0 0 0" dumpable
	check_out "BPF ceiling: an ambient raise reaches the next exec's pA', the same" \
		"0 0 1 0" noroot
	check_out "BPF ceiling: an ambient capability from before the capped exec stays gone, the same" \
		"0 0 0 0" ambdrop
	session_to_parent $H/c/ktamper "BPF ceiling" $H/c/ktamper_admin
	parked_parents ENOMEM "is refused: ENOMEM"
	fcapsctl unload >/dev/null
	# --record none: one load of the config (armed, mode and the ceilings'
	# count) must send a capped sender or target to the whole rule
	step "BPF enforce --record none" fcapsctl load --mode enforce --record none --scan $H/c
	check_out "BPF ceiling, --record none: the pair rules compare the capped sets" \
		"-1/1 -1/1 -1/1 0" pairs
	check_out "BPF ceiling, --record none: the target's capped sets too" "0 0" cpair
	check_out "BPF ceiling, --record none: SIGIO too" "sigio: delivered" csigio
	check_out "BPF ceiling, --record none: cap_sys_nice in the capped pE" "0 0" npair
	# the count is BPF's: the loader's own config writes leave it alone
	$H/c/probe_raw pause > /dev/null & s1=$!
	check_out "a capped process alive: its ceiling counted" "1" live
	fcapsctl set kill=1 exec=1 > /dev/null && fcapsctl mode enforce > /dev/null
	check_out "... and still counted after the loader rewrote the config (set, mode)" "1" live
	# with it live the gate differs in the count alone; in shadow mode it
	# differs in the mode too, and nothing is refused (uid 1000 in a user
	# namespace of its own: refused in enforce mode, bpf.sh)
	fcapsctl mode shadow > /dev/null
	nskill() {
		runas 1000 sleep 100 & t=$!
		sleep 0.2; r=0; runas 1000 unshare -r kill -0 $t 2>/dev/null || r=EPERM; echo $r
		kill $t; wait $t 2>/dev/null
	}
	check_out "... and in shadow mode, with it live, --record none refuses nothing" "0" nskill
	kill $s1; wait $s1 2>/dev/null
	check_out "... and not once it is gone" "0" live
	fcapsctl unload >/dev/null
	# a full map of ceilings refuses the exec that needs one (fail closed)
	step "BPF enforce with room for two ceilings" \
		fcapsctl load --mode enforce --ceiling-max 2 --scan $H/c
	$H/c/probe_ns pause > /dev/null & s1=$!
	$H/c/probe_ns pause > /dev/null & s2=$!
	sleep 0.5
	out=$($H/c/probe_ns status 2>&1)
	check "a third capped exec fails rather than run uncapped" sh -c "! echo '$out' | grep -q Eff"
	check_contains "... with ENOMEM" "memory" "$out"
	# one slot free: the exec takes it, its fork finds none for the child
	kill $s2; wait $s2 2>/dev/null
	check_out "a capped process's fork with no ceiling left for the child fails (ENOMEM), no child runs uncapped" "12" \
		sh -c "sleep 0.5; $H/c/probe_raw battery $$ 1 | tr ' ' '\n' | sed -n 's/^bat_child_errno=//p'"
	kill $s1; wait $s1 2>/dev/null
	check_out "... and runs, capped, once the others are gone" "0" \
		sh -c "sleep 0.5; $H/c/probe_ns battery $$ 1 | tr ' ' '\n' | sed -n 's/^bat_sethostname=//p'"
	check_out "no credentials keep a ceiling once their processes are gone" "0" \
		sh -c "sleep 0.5; fcapsctl status --json | sed 's/.*\"ceilings\":\([0-9]*\).*/\1/'"
	check_out "root's own shell is untouched" "ok" sh -c "hostname fcaps && echo ok"
	fcapsctl unload >/dev/null
	# a full map of marked namespaces refuses the namespace that needs one
	# (a capped root's ceiling lacks cap_setfcap: each namespace it makes
	# is marked), and takes it once one is gone
	step "BPF enforce with room for two marks" \
		fcapsctl load --mode enforce --mark-max 2 --scan $H/c
	holders=
	for i in 1 2; do
		$H/c/ktamper --userns hold 60 > $H/ns.$i 2>&1 &
		holders="$holders $!"
		wait_line "hold: ok" $H/ns.$i || fail "capped root $i holds a user namespace"
	done
	check_contains "two capped roots hold a user namespace each: a third is refused (ENOMEM)" \
		"Cannot allocate memory" "$($H/c/ktamper --userns hold 0 2>&1)"
	kill $holders; wait $holders 2>/dev/null
	check_out "... and made once they are gone" "hold: ok" \
		sh -c "sleep 0.5; $H/c/ktamper --userns hold 0"
	# a marked namespace freed in free_user_ns()'s loop, with the nested
	# namespace that held it last, gives its mark back as well (root is
	# mapped there by us: its capped creator may not map it)
	nest() {
		$H/c/ktamper nest > $H/nest.out 2>&1 &
		b=$! i=0
		until grep -q '^ns1: ' $H/nest.out 2>/dev/null || [ $i = 50 ]; do
			sleep 0.1; i=$((i + 1))
		done
		p=$(sed -n 's/^ns1: //p' $H/nest.out)
		[ -n "$p" ] && echo "0 0 1" > /proc/$p/uid_map && echo "0 0 1" > /proc/$p/gid_map
		wait $b
		grep -v '^ns1: ' $H/nest.out
	}
	check_out "a capped root's namespace freed in the loop that frees the one nested in it" \
		"nest: ok" nest
	check_out "... leaves no mark behind (status: ns_marks)" "0" \
		sh -c "fcapsctl status --json | sed 's/.*\"ns_marks\":\([0-9]*\).*/\1/'"
	# the slab hands the freed address to the next namespace: an uncapped
	# root's, whose root maps root there unless a stale mark says no
	mapped_root() {
		out=$(/usr/local/bin/fcaps_probe --userns status)
		case "$out" in *userns_errno*) echo refused;; *" euid=0 "*) echo root;; *) echo "$out";; esac
	}
	check_out "... and an uncapped root's next namespace maps root as root" "root" mapped_root
	fcapsctl unload >/dev/null
	# Ceilings that share one count of the filter (ceiling_maybe()): with
	# --ceiling-buckets 1 every one does. Three of six capped processes
	# die; the other three, asked afterwards in their own credentials, are
	# still capped, and the count goes back to 0 when they are gone.
	step "BPF enforce, every ceiling counted in one bucket" \
		fcapsctl load --mode enforce --ceiling-buckets 1 --scan $H/c
	doomed= kept=
	for i in 1 2 3 4 5 6; do
		$H/c/probe_raw hold > $H/crowd.$i &
		if [ $((i % 2)) = 1 ]; then doomed="$doomed $!"; else kept="$kept $!"; fi
	done
	check_out "six capped processes: six ceilings" "6" live
	# one bucket, so one copy of a ceiling for all (ceiling_front()): each
	# lookup finds another key's copy, and the rule still reads each
	# process's own ceiling, the sender's and the target's
	xpair() {
		$H/c/probe_ns pause > /dev/null & w=$!
		$H/c/probe_raw pause > /dev/null & n=$!
		sleep 0.3
		for i in 1 2 3; do
			echo "$(fields kill -- $H/c/probe_raw kill $w 0)"
			echo "$(fields kill -- $H/c/probe_raw kill $n 0)"
		done | tr '\n' ' ' | sed 's/ $//'
		kill $w $n; wait $w $n 2>/dev/null
	}
	check_out "... a capped root signals one capped wider (EPERM) and one capped alike, in turn" \
		"-1 0 -1 0 -1 0" xpair
	kill -9 $doomed; wait $doomed 2>/dev/null
	check_out "three of them killed and reaped: three ceilings" "3" live
	# the others now sethostname in the credentials they have held throughout
	asked() {
		kill -USR1 $kept
		sleep 0.5
		for i in 2 4 6; do
			sed -n 's/^hold_sethostname=\([-0-9]*\).*/\1/p' $H/crowd.$i
		done | tr '\n' ' ' | sed 's/ $//'
	}
	check_out "... and those three still capped (sethostname EPERM)" "-1 -1 -1" asked
	# told already, unless the filter passed asked() by
	kill -USR1 $kept 2>/dev/null
	wait $kept 2>/dev/null
	check_out "... and no ceiling left once they are gone" "0" live
	fcapsctl unload >/dev/null
	sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1
	# BPF enforcing beside the kernel's rules: an exec the kernel refuses
	# first (a malformed legacy value) never reaches BPF's enforcing
	# program, and still has BPF's record ("legacy ret pP"; the shell that
	# prints its pid is the process that execs)
	mount -o ro /dev/vda /mnt
	step "BPF enforce beside the kernel's rules" fcapsctl load --mode enforce --scan /mnt
	check_out "an exec the kernel refuses before BPF (malformed v3): BPF's record of it (legacy 1, ret -1, pP 0)" \
		"1 -1 0" rec_of decisions runas 1000 sh -c 'echo pid=$$; exec /mnt/m_v3_size29 status 2>/dev/null'
	# a value longer than the 256 bytes the scan reads first (then it asks
	# the size): its whole length, and BPF's own refusal of it
	polt() { pol "$1" | sed 's/ *$//'; }
	check_out "the scan's entry of a 300-byte v1 value: its whole size, malformed" \
		"size=300 malformed" polt /mnt/m_v1_size300
	sysctl -qw kernel.fcaps.exec=0
	check_out "... BPF alone refuses its exec: the record (legacy 1, ret -1, pP 0)" \
		"1 -1 0" rec_of decisions runas 1000 sh -c 'echo pid=$$; exec /mnt/m_v1_size300 status 2>/dev/null'
	check "... with EPERM" eperm runas 1000 /mnt/m_v1_size300 status
	sysctl -qw kernel.fcaps.exec=1
	fcapsctl unload >/dev/null
	umount /mnt
	;;
nolsm)
	check_out "booted without the bpf LSM" "capability" cat /sys/kernel/security/lsm
	out=$(fcapsctl load --mode enforce 2>&1); rc=$?
	check "load --mode enforce fails without the bpf LSM" [ "$rc" = 1 ]
	check_contains "... saying why" "the bpf LSM is not active" "$out"
	check "... and loads nothing" [ ! -e /sys/fs/bpf/fcaps ]
	out=$(fcapsctl load --mode shadow 2>&1); rc=$?
	check "load --mode shadow loads, with a warning" [ "$rc" = 0 ]
	check_contains "... the warning" "warning: the bpf LSM is not active" "$out"
	check_contains "status says so" '"bpf_lsm":false' "$(fcapsctl status --json)"
	out=$(fcapsctl mode enforce 2>&1); rc=$?
	check "mode enforce is refused as load's is" [ "$rc" = 1 ]
	check_contains "... saying why" "the bpf LSM is not active" "$out"
	check_contains "... and the mode stays shadow" '"mode":"shadow"' "$(fcapsctl status --json)"
	fcapsctl unload >/dev/null
	# with no LSM of its own in the list, the xattr hooks' default is what
	# decides before the capability checks (0001)
	cp /usr/local/bin/fcaps_probe $H/nolsm_v1
	check "lsm=capability: root writes a legacy value" \
		setfattr -n security.capability -v $V1 $H/nolsm_v1
	check_out "... which root's exec then applies" "0x2000" fields Prm -- $H/nolsm_v1 status
	chmod 0777 $H && chmod 0666 $H/nolsm_v1
	check "... uid 1000 cannot remove it: EPERM" \
		eperm runas 1000 setfattr -x security.capability $H/nolsm_v1
	check_out "... still there" "$V1" val $H/nolsm_v1
	check "... root removes it" setfattr -x security.capability $H/nolsm_v1
	# setfattr exits 0 when the call returns any value but -1
	check_out "... and it is gone" "" val $H/nolsm_v1
	: > $H/nolsm_own && chown 1000:1000 $H/nolsm_own
	check "... uid 1000 writes another security.* name on its own file: EPERM" \
		eperm runas 1000 setfattr -n security.fcapstest -v 1 $H/nolsm_own
	setfattr -n security.fcapstest -v 1 $H/nolsm_own
	check "... nor removes one root wrote there: EPERM" \
		eperm runas 1000 setfattr -x security.fcapstest $H/nolsm_own
	;;
*)
	echo "usage: holes.sh kernel|bpf|sync|faults|ceiling|nolsm" >&2
	exit 2;;
esac
finish
