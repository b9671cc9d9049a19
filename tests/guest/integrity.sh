#!/bin/sh
# integrity.sh bpf|both|kernel: SEMANTICS 7, enforcement that the processes
# it caps cannot switch off. The attacker is root running a capped copy of
# a tool (a legacy value cap_net_raw+ep: it keeps uid 0 and root's files).
#   bpf     stock kernel, BPF enforcing: every way to silence BPF, refused;
#           in shadow mode each let through and recorded
#   both    patched kernel with its rules on, BPF enforcing too
#   kernel  patched kernel, its rules alone: the same process cannot
#           switch them off (kernel.fcaps.*, kernel.modprobe)
. /fcaps/tests/lib.sh
mode=$1
C=/tmp/capped
P=/sys/fs/bpf/fcaps
mkdir -p $C/bin $C/raw
: > $C/policy

# cap_copy SRC NAME [CAPTEXT]: a capped copy, by its legacy value (the
# patched kernel) and by a policy line (BPF, which reads the policy)
cap_copy() {
	cp "$1" $C/$2
	echo "$C/$2 ${3:-cap_net_raw+ep}" >> $C/policy
	[ "$mode" = bpf ] || fcapsctl setcap $C/$2 "${3:-cap_net_raw+ep}"
}
cap_copy /bin/busybox busybox
for a in hostname rm mv mkdir ln chmod mount unshare sh cat; do ln -s $C/busybox $C/bin/$a; done
cap_copy /usr/local/bin/fcapsctl fcapsctl
cap_copy /usr/local/bin/fcaps_tamper tamper
cap_copy /usr/local/bin/fcaps_tamper tamper_bpf 'cap_net_raw,cap_bpf,cap_perfmon+ep'
cap_copy /usr/local/bin/fcaps_tamper tamper_admin 'cap_net_raw,cap_sys_admin+ep'
cap_copy /usr/local/bin/fcaps_tamper tamper_module 'cap_net_raw,cap_sys_module+ep'
cap_copy /usr/local/bin/fcaps_tamper tamper_sub 'cap_net_raw+ep cap_net_bind_service+p'
cap_copy /usr/local/bin/fcaps_tamper tamper_super 'cap_net_raw,cap_net_bind_service+ep'
cap_copy /usr/local/bin/fcaps_tamper tamper_tp 'cap_net_raw+ep cap_sys_ptrace+p'
cap_copy /bin/busybox busybox_super 'cap_net_raw,cap_net_bind_service+ep'
cap_copy /usr/sbin/bpftool bpftool
cap_copy /usr/bin/setfattr setfattr
mount -o ro /dev/vda /mnt
T=/usr/local/bin/fcaps_tamper

capped_hostname() { $C/bin/hostname fcaps-capped 2>/dev/null && echo ok || echo EPERM; }
# Everything that says BPF still enforces: the pins, armed enforce, and a
# capped process refused sethostname
enforced() {
	echo "$(ls $P/links | wc -l) $(fcapsctl status --json | sed 's/.*"mode":"\([a-z]*\)".*"armed":\([0-9]\).*/\1 \2/') $(capped_hostname)"
}

bpf_attacks() {
	want_links=$(ls $P/links | wc -l)
	E="$want_links enforce 1 EPERM"
	check_out "BPF enforcing: a capped root process cannot sethostname" "$E" enforced
	check "capped: fcapsctl unload fails" sh -c "! $C/fcapsctl unload"
	check_out "... and BPF still enforces" "$E" enforced
	check "capped: fcapsctl mode shadow, set exec=0 fail" \
		sh -c "! $C/fcapsctl mode shadow && ! $C/fcapsctl set exec=0 kill=0"
	check "capped: rm -rf $P fails" sh -c "! $C/bin/rm -rf $P 2>/dev/null"
	check "capped: mv $P aside, mkdir, ln -s and chmod in it: EPERM" sh -c "
		! $C/bin/mv $P /sys/fs/bpf/gone && ! $C/bin/mkdir $P/new &&
		! $C/bin/ln -s /tmp $P/links/new && ! $C/bin/chmod 0777 $P"
	check "capped: chmod of a pin in it (the config, a link): EPERM" sh -c "
		! $C/bin/chmod 0666 $P/config && ! $C/bin/chmod 0666 $P/links/fcaps_kill"
	check "capped: a hard link in links/: EPERM" \
		eperm $C/bin/ln $P/links/fcaps_ceiling_capable $P/links/new
	# bpffs creates a file only for a pin (vfs_mkobj: lsm/inode_create)
	check_out "capped with cap_bpf: a map of its own pinned in links/: EPERM" \
		"map-pin: EPERM" $C/tamper_bpf map-pin $P/links/new
	check_out "... and pinned beside the pin directory: allowed" \
		"map-pin: ok" $C/tamper_bpf map-pin /sys/fs/bpf/tamper
	rm -f /sys/fs/bpf/tamper
	check_out "... and BPF still enforces" "$E" enforced
	check "capped: bpftool map update of the config fails" \
		sh -c "! $C/bpftool map update pinned $P/config key 0 0 0 0 value hex $(printf '00 %.0s' $(seq 1 64)) 2>/dev/null"
	for a in "map-update $P/config" "map-delete $P/policy" "map-delete $P/ceilings" \
		 "map-freeze $P/counters" "mmap-write $P/config" "mmap-validate $P/config" \
		 "prog-get $P/progs/fcaps_ceiling_capable" "link-detach $P/links/fcaps_ceiling_capable"; do
		check_out "capped: $a: EPERM" "${a%% *}: EPERM" $C/tamper $a
	done
	# a read-only mapping cannot become writable: bpf_map_mmap() takes
	# VM_MAYWRITE away from it (the kernel's own refusal)
	# the commands that change a map beside update and delete: each one
	# reads_only() lets through would be a way around the mark
	check_out "capped: lookup-and-delete and the batches that write: EPERM; the reads: allowed" \
		"map-cmds: lookup-and-delete EPERM update-batch EPERM delete-batch EPERM lookup-and-delete-batch EPERM lookup-batch ok next-key ok" \
		$C/tamper map-cmds $P/policy
	check_out "capped: mprotect of a read-only mapping of the decisions to writable: EACCES" \
		"mprotect: EACCES" $C/tamper mprotect $P/decisions
	check_out "capped with cap_bpf: link-update of fcaps_kill to a program of its own: EPERM" \
		"link-update: EPERM" $C/tamper_bpf link-update $P/links/fcaps_kill
	# with cap_bpf in its ceiling it may load programs, but none that
	# reaches fcaps' maps: not by descriptor, nor through a map of maps
	check_out "capped with cap_bpf: a program that uses the config map: EPERM" \
		"prog-with-map: EPERM" $C/tamper_bpf prog-with-map $P/config
	check_out "capped with cap_bpf: a map of maps shaped after it: EPERM" \
		"map-of-maps: EPERM" $C/tamper_bpf map-of-maps $P/config
	check_out "... while a program of its own loads (no descriptor of fcaps' maps)" \
		"prog-load: ok" $C/tamper_bpf prog-load
	# a descriptor passed by an uncapped process marks the receiver too
	rm -f /tmp/sock
	timeout 10 $C/tamper_bpf recv-fd /tmp/sock > /tmp/recv.out &
	wait_line listening /tmp/recv.out
	$T send-fd /tmp/sock $P/config > /dev/null
	wait $!
	check_out "capped with cap_bpf, given the config map over a socket: its program refused" \
		"recv-fd: EPERM" sed -n '/^recv-fd: /p' /tmp/recv.out
	# fcaps' programs and links are not received at all
	for pin in progs/fcaps_ceiling_capable links/fcaps_kill; do
		rm -f /tmp/sock
		timeout 20 $C/tamper_bpf recv-fd /tmp/sock > /tmp/recv.out &
		for i in $(seq 50); do grep -qx listening /tmp/recv.out && break; sleep 0.2; done
		$T send-fd /tmp/sock $P/$pin > /dev/null
		wait $!
		check_out "capped with cap_bpf, sent $pin over a socket: not received" \
			"recv-fd: EPERM" sed -n '/^recv-fd: /p' /tmp/recv.out
	done
	check_out "capped: kernel.ftrace_enabled=0 (stops every trampoline): EPERM" \
		"write: EPERM" $C/tamper write /proc/sys/kernel/ftrace_enabled 0
	check_out "capped: debugfs kprobes/enabled=0 (stops the policy's sync kprobe): EPERM" \
		"write: EPERM" $C/tamper write /sys/kernel/debug/kprobes/enabled 0
	# debugfs keeps the real operations behind a debugfs_fsdata once the
	# file has been opened (before, a tagged pointer): the other branch
	cat /sys/kernel/debug/kprobes/enabled > /dev/null
	check_out "... and once root has opened it: EPERM" \
		"write: EPERM" $C/tamper write /sys/kernel/debug/kprobes/enabled 0
	check_out "capped: kernel.modprobe: EPERM" \
		"write: EPERM" $C/tamper write /proc/sys/kernel/modprobe /tmp/evil
	# in a user namespace of its own (no id map, no exec) it is still kuid
	# 0, the owner of the pins and the knobs, with every capability there
	# and none in the initial namespace
	for a in "unlink $P/links/fcaps_ceiling_capable" "map-update $P/config" \
		 "write /proc/sys/kernel/ftrace_enabled 0" "write /proc/sys/kernel/modprobe /tmp/evil"; do
		check_out "capped, in a user namespace of its own: $a: EPERM" "${a%% *}: EPERM" \
			$C/tamper --userns $a
	done
	# a descriptor's mark follows the table's copy into a child
	check_out "capped: its child updates the config through the descriptor it got: EPERM" \
		"fork-map-update: EPERM" $C/tamper fork-map-update $P/config
	check_out "capped: the same after a thread that shared its descriptors ended: EPERM" \
		"thread-map-update: EPERM" $C/tamper thread-map-update $P/config
	check_out "capped with cap_sys_admin: kernel.ftrace_enabled may be written (what changing enforcement asks)" \
		"write: ok" $C/tamper_admin write /proc/sys/kernel/ftrace_enabled 1
	check "capped: a second bpffs mount fails, in a user namespace too" sh -c "
		mkdir -p /tmp/bpf2 && ! $C/bin/mount -t bpf bpf /tmp/bpf2 2>/dev/null &&
		! $C/bin/unshare -Urm sh -c 'mount -t bpf bpf /tmp/bpf2' 2>/dev/null"
	check_out "... and after all of them BPF still enforces" "$E" enforced
	# reading stays what it was: by value (BTF, which bpftool and fcapsctl
	# print with, takes CAP_SYS_ADMIN, which a capped root never had)
	check_out "capped: reading a map stays allowed" "map-read: ok" $C/tamper map-read $P/config
	check_out "... and two, one after the other, in one process" "map-read: ok" \
		$C/tamper map-read $P/config $P/decisions
	check_out "uncapped root: the same descriptors are its to use (map-delete: ENOENT)" \
		"map-delete: ENOENT" $T map-delete $P/policy
	check_out "uncapped root: the same commands are the kernel's to answer" \
		"map-cmds: lookup-and-delete ENOENT update-batch ok delete-batch ok lookup-and-delete-batch ok lookup-batch ok next-key ok" \
		$T map-cmds $P/policy
	check_out "uncapped root: a link of fcaps' is the kernel's to refuse (EOPNOTSUPP)" \
		"link-detach: EOPNOTSUPP" $T link-detach $P/links/fcaps_ceiling_capable
	step "uncapped root: fcapsctl mode and set work" \
		sh -c "fcapsctl set kill=1 && fcapsctl mode enforce"
}

shadow_attacks() {
	fcapsctl decisions --clear > /dev/null
	step "shadow mode" fcapsctl mode shadow
	check_out "shadow: capped map-delete goes through (ENOENT)" "map-delete: ENOENT" \
		$C/tamper map-delete $P/policy
	check_out "shadow: capped mmap-write goes through" "mmap-write: ok" $C/tamper mmap-write $P/config
	check_out "shadow: capped chmod of the pin directory goes through" "0700" \
		sh -c "$C/bin/chmod 0700 $P && stat -c %a $P | sed 's/^/0/'"
	integrity=$(fcapsctl decisions --json | grep '"hook":"integrity"')
	check_out "shadow: each attempt is recorded (bpf 3 = delete, mmap, pin 8 = setattr)" \
		"1/3 3/0 4/8" sh -c "echo '$integrity' | sed 's/.*\"op\":\([0-9]*\),\"arg\":\([0-9]*\).*/\1\/\2/' | sort -u | tr '\n' ' ' | sed 's/ $//'"
	check_out "shadow: ... as the capped process, uid 0 (pE cap_net_raw)" "0 8192" \
		sh -c "echo '$integrity' | head -n 1 | sed 's/.*\"uid\":\([0-9]*\),.*\"pe\":\([0-9]*\),.*/\1 \2/'"
	step "enforce again" fcapsctl mode enforce
}

# A map of marks that is full (--mark-max 1): the descriptor table whose
# mark does not fit cannot be told apart, so every caller that may not
# change enforcement may only read through bpf() until the next load
marks_full() {
	step "load --mark-max 1" fcapsctl load --mode enforce --mark-max 1 --policy $C/policy --scan /mnt
	$C/tamper pin-hold $P/config 30 > /tmp/hold.out &
	h=$!
	wait_line "pin-hold: ok" /tmp/hold.out || fail "marks full: the first capped process holds the config"
	check_out "marks full: a second capped process updates the config through its descriptor: EPERM" \
		"map-update: EPERM" $C/tamper map-update $P/config
	check_out "... and one with cap_bpf and no descriptor of fcaps' loads nothing (bpf() reads only)" \
		"prog-load: EPERM" $C/tamper_bpf prog-load
	check_out "... while reading stays allowed" "map-read: ok" $C/tamper map-read $P/config
	step "... and the uncapped root's loader still works" fcapsctl set kill=1
	kill $h
	wait $h 2>/dev/null
	step "uncapped root unloads" fcapsctl unload
}

# A capped root process writes kernel.modprobe and asks for a module: where
# nothing stops the write, the helper it names runs with every capability
modprobe_escape() {
	printf '#!/bin/sh\ngrep CapEff /proc/self/status > /tmp/helper.out\n' > /tmp/evil
	chmod 755 /tmp/evil
	rm -f /tmp/helper.out
	$C/tamper write /proc/sys/kernel/modprobe /tmp/evil > /dev/null
	$T modreq > /dev/null 2>&1
	sleep 1
	if [ -f /tmp/helper.out ]; then tr -d '\t' < /tmp/helper.out; else echo "no helper ran"; fi
	echo > /proc/sys/kernel/modprobe
}

# kernel.modprobe asks for CAP_SYS_MODULE, on each path, from the capped
# sets and in the initial namespace
modprobe_cap() {
	check_out "capped with cap_sys_admin but not cap_sys_module: kernel.modprobe: EPERM" \
		"write: EPERM" $C/tamper_admin write /proc/sys/kernel/modprobe /tmp/evil
	check_out "capped with cap_sys_module: kernel.modprobe may be written" \
		"write: ok" $C/tamper_module write /proc/sys/kernel/modprobe /tmp/evil
	echo > /proc/sys/kernel/modprobe
	check_out "uncapped root in a user namespace of its own: kernel.modprobe: EPERM" \
		"write: EPERM" $T --userns write /proc/sys/kernel/modprobe /tmp/evil
	# the guard is on writes alone
	check_out "capped: kernel.modprobe may be read" "read: ok" $C/tamper read /proc/sys/kernel/modprobe
	check_out "uid 1000: kernel.modprobe may be read" "read: ok" \
		runas 1000 $T read /proc/sys/kernel/modprobe
}

# Every check that reads a capability reads the capped sets: the xattr
# guard (an empty value and a removal need CAP_SETFCAP, SEMANTICS 6)
guard() {
	cp /usr/local/bin/fcaps_probe /tmp/v2file
	setfattr -n security.capability -v 0x0100000200200000000000000000000000000000 /tmp/v2file
	check "capped: an empty security.capability over a 6.1 v2 value: EPERM" \
		eperm $C/setfattr -n security.capability /tmp/v2file
	check "capped: removing it: EPERM" eperm $C/setfattr -x security.capability /tmp/v2file
	check_out "... and the value is there still" "0x0100000200200000000000000000000000000000" \
		sh -c "getfattr -e hex -n security.capability /tmp/v2file 2>/dev/null | sed -n 's/^security.capability=//p'"
}

# Fail closed: a 6.1 value BPF predicts refused (6.1's getxattr will not
# show a 12-byte revision 1, the loader records it unreadable) that 6.1's
# exec runs: a capped process's exec of it is refused, never left uncapped
contradicted() {
	check "capped: exec of a 12-byte revision-1 value BPF cannot read: refused (EPERM)" \
		eperm $C/bin/sh -c '/mnt/rev1_raw status'
	check "... while an uncapped root runs it (6.1's exec accepts the value)" /mnt/rev1_raw status
}

# The capped sets decide where the kernel compares a tracer's or a
# parent's. A capped root traces another (the same uid and sets: it may),
# whose exec of a plain root file 6.1 downgrades because the tracer lacks
# CAP_SYS_PTRACE: the tracee stays capped, where untraced it would be root
# again; were the live sets asked, the tracer would hold an uncapped root.
# And PTRACE_TRACEME by an uncapped child of a capped parent.
tracing() {
	$C/bin/sh -c "sleep 1; exec /usr/local/bin/fcaps_probe battery \$\$ 1" > /tmp/traced.out 2>&1 &
	t=$!
	sleep 0.2
	check_out "a capped root process traces another, capped the same" "trace: ok" $C/tamper trace $t
	wait $t 2>/dev/null
	check_out "... whose exec of a plain root file stays capped: no sethostname (downgraded)" \
		"0" sh -c "tr ' ' '\n' < /tmp/traced.out | sed -n 's/^bat_sethostname=//p'"
	check_out "PTRACE_TRACEME by an uncapped root child of a capped root parent: EPERM" \
		"traceme: EPERM" $C/tamper traceme $T traceme-self
	check_out "... by a child capped the same: allowed" \
		"traceme: ok" $C/tamper traceme $C/tamper traceme-self
	check_out "... by an uncapped root child of a parent with cap_sys_ptrace in pP alone: EPERM (pE decides)" \
		"traceme: EPERM" $C/tamper_tp traceme $T traceme-self
	# /proc/PID/mem and environ ask with the caller's fs credentials
	# (PTRACE_MODE_FSCREDS), where 6.1 compares the effective set
	sleep 30 &
	r=$!
	$C/busybox_super sleep 30 &
	s=$!
	# the target must have run the capped file before it is asked about
	for i in $(seq 50); do
		[ "$(readlink /proc/$s/exe)" = $C/busybox_super ] && break
		sleep 0.1
	done
	check_out "a capped root opens an uncapped root process's /proc/PID/mem for writing: EACCES" \
		"write: EACCES" $C/tamper write /proc/$r/mem x
	check_out "capped root, pE raw, pP raw+bind: the environ of a root process capped to raw+bind: EACCES (pE decides)" \
		"read: EACCES" $C/tamper_sub read /proc/$s/environ
	check_out "... capped to raw+bind in pE too: allowed" \
		"read: ok" $C/tamper_super read /proc/$s/environ
	kill $r $s
	wait $r $s 2>/dev/null
}

# What a capped root keeps on both paths (SEMANTICS 7): uid 0 owns root's
# files and root-owned knobs that check no capability. Each is shown to
# succeed, so that a researcher sees the limitation; none undoes a cap in
# the capped process itself.
limitations() {
	check_out "limitation, both paths: a capped root cannot sethostname()..." "EPERM" capped_hostname
	check_out "... but writes kernel.hostname" "write: ok fcaps-by-sysctl" \
		sh -c "echo \$($C/tamper write /proc/sys/kernel/hostname fcaps-by-sysctl) \$(hostname)"
	hostname fcaps
	: > /tmp/rootfile && chmod 0644 /tmp/rootfile
	check_out "limitation, both paths: it writes root's files (no CAP_DAC_OVERRIDE needed: it is the owner)" \
		"write: ok" $C/tamper write /tmp/rootfile owned
	mkdir -p /tmp/binfmt && mount -t binfmt_misc binfmt_misc /tmp/binfmt
	check_out "limitation, both paths: it registers a binfmt_misc handler (root-owned, no capability asked)" \
		"write: ok" $C/tamper write /tmp/binfmt/register ':fcapstest:E::fcapstest::/bin/true:'
	[ -e /tmp/binfmt/fcapstest ] && echo -1 > /tmp/binfmt/fcapstest
	umount /tmp/binfmt
	old=$(cat /proc/sys/kernel/threads-max)
	check_out "limitation, both paths: it lowers kernel.threads-max (a denial of service)" \
		"write: ok" $C/tamper write /proc/sys/kernel/threads-max 100000
	echo "$old" > /proc/sys/kernel/threads-max
	old=$(cat /proc/sys/kernel/perf_event_paranoid)
	check_out "limitation, both paths: it lowers kernel.perf_event_paranoid to -1 (perf events for every user)" \
		"write: ok" $C/tamper write /proc/sys/kernel/perf_event_paranoid -1
	echo "$old" > /proc/sys/kernel/perf_event_paranoid
	sleep 30 &
	o=$!
	check_out "limitation, both paths: it makes an uncapped root process the OOM killer's first victim (oom_score_adj 1000: a SIGKILL no kill rule sees)" \
		"write: ok 1000" sh -c "echo \$($C/tamper write /proc/$o/oom_score_adj 1000) \$(cat /proc/$o/oom_score_adj)"
	kill $o
	wait $o 2>/dev/null
	# root-owned programs the kernel or an uncapped root runs: a capped
	# root replaces one and has it run, with every capability
	if [ "$($C/tamper keyreq)" = "keyreq: ENOSYS" ]; then
		skip "limitation, both paths: it replaces /sbin/request-key and asks for a key" "no CONFIG_KEYS"
	else
		check_out "limitation, both paths: it replaces /sbin/request-key and asks for a key: the kernel runs it with every capability" \
			"CapEff:000001ffffffffff" helper_shown
	fi
	check_out "limitation, both paths: it types a line into the terminal of the uncapped root shell that started it (TIOCSTI), which runs it with every capability" \
		"CapEff:000001ffffffffff" sti_shown
}

# CapEff of the kernel's request-key helper, once a capped root wrote it
helper_shown() {
	rm -f /tmp/helper.out
	$C/bin/sh -c "printf '#!/bin/sh\ngrep CapEff /proc/self/status > /tmp/helper.out\n' > /sbin/request-key &&
		chmod 755 /sbin/request-key"
	$C/tamper keyreq > /dev/null
	rm -f /sbin/request-key
	if [ -f /tmp/helper.out ]; then tr -d '\t' < /tmp/helper.out; else echo "no helper ran"; fi
}

# CapEff of what a capped root typed into its uncapped root shell's terminal
sti_shown() {
	rm -f /tmp/sti.out
	$T pty-shell "$C/tamper sti 'grep CapEff /proc/self/status > /tmp/sti.out; exit'" > /dev/null
	if [ -f /tmp/sti.out ]; then tr -d '\t' < /tmp/sti.out; else echo "the line did not run"; fi
}

# The escape itself, where nothing stops it: a root that dropped every
# capability (no legacy value needed) names the helper and asks for a module
escape_shown() {
	printf '#!/bin/sh\ngrep CapEff /proc/self/status > /tmp/helper.out\n' > /tmp/evil
	chmod 755 /tmp/evil
	rm -f /tmp/helper.out
	$T --nocaps write /proc/sys/kernel/modprobe /tmp/evil > /dev/null
	$T modreq > /dev/null 2>&1
	sleep 1
	if [ -f /tmp/helper.out ]; then tr -d '\t' < /tmp/helper.out; else echo "no helper ran"; fi
	echo > /proc/sys/kernel/modprobe
}

case "$mode" in
bpf|both)
	if [ "$mode" = bpf ]; then
		check_out "stock, nothing loaded: a root without capabilities names kernel.modprobe's helper, which then runs with every capability" \
			"CapEff:000001ffffffffff" escape_shown
	else
		check_out "patched kernel: a root without capabilities cannot write kernel.modprobe: no helper runs" \
			"no helper ran" escape_shown
	fi
	step "load --mode enforce" fcapsctl load --mode enforce --policy $C/policy --scan /mnt
	bpf_attacks
	guard
	[ "$mode" = bpf ] && contradicted
	# a capped process is capped in shadow mode only where the kernel caps
	# it (BPF's ceilings are enforce mode's): on the patched kernel
	[ "$mode" = both ] && shadow_attacks
	check_out "enforce: a capped root writes kernel.modprobe and asks for a module: no helper runs" \
		"no helper ran" modprobe_escape
	modprobe_cap
	tracing
	limitations
	step "uncapped root unloads" fcapsctl unload
	[ "$mode" = bpf ] && marks_full
	umount /mnt
	;;
kernel)
	check_out "kernel rules: a capped root process cannot sethostname" "EPERM" capped_hostname
	for s in exec kill nosuid_ignore; do
		check_out "capped: kernel.fcaps.$s: EPERM" "write: EPERM" \
			$C/tamper write /proc/sys/kernel/fcaps/$s 0
		check_out "uncapped root in a user namespace of its own: kernel.fcaps.$s: EPERM" \
			"write: EPERM" $T --userns write /proc/sys/kernel/fcaps/$s 0
	done
	check_out "capped with cap_sys_admin: kernel.fcaps.exec may be written" "write: ok" \
		$C/tamper_admin write /proc/sys/kernel/fcaps/exec 1
	check_out "capped: kernel.modprobe: EPERM (CAP_SYS_MODULE)" "write: EPERM" \
		$C/tamper write /proc/sys/kernel/modprobe /tmp/evil
	check_out "... so asking for a module runs nothing" "no helper ran" modprobe_escape
	modprobe_cap
	guard
	check_out "uncapped root may write kernel.modprobe" "write: ok" \
		$T write /proc/sys/kernel/modprobe /tmp/evil
	echo > /proc/sys/kernel/modprobe
	tracing
	limitations
	check_out "kernel rules still apply" "EPERM" capped_hostname
	;;
*)
	echo "usage: integrity.sh bpf|both|kernel" >&2
	exit 2
	;;
esac
finish
