#!/bin/sh
# Bad input to every fcapsctl subcommand: the right exit status (2 for a
# usage error, 1 for a runtime error), a message on stderr naming the
# problem, nothing on stdout, and nothing changed (status, policy, value).
. /fcaps/tests/lib.sh
T=/tmp/bad
mkdir -p $T/dir
cp /usr/local/bin/fcaps_probe $T/p
fcapsctl setcap $T/p 'cap_net_raw+ep'
printf '/etc/passwd cap_kill+ep\n' > $T/good.policy
head -c 3000 /usr/local/bin/fcaps_probe > $T/binary.policy
{ printf '/etc/passwd '; head -c 5000 /dev/zero | tr '\0' x; printf ' cap_kill+ep\n'; } > $T/long.policy
printf '/etc/passwd cap_kill+ep\n%.0s' $(seq 1 20000) > $T/big.policy
printf '/nonexistent cap_kill+ep\n' >> $T/big.policy
# the capability text forgotten: "PATH " and "PATH v1 "
printf '%s \n' $T/p > $T/empty.policy
printf '%s v1 \n' $T/p > $T/emptyv1.policy
# a symbolic link as the file, or as a directory above it
ln -s $T/p $T/plink
ln -s $T $T/dlink
printf '%s cap_kill+ep\n' $T/dlink/p > $T/link.policy
fcapsctl load --mode shadow --scan $T >/dev/null || fail "loading for the test"

state() { fcapsctl status --json | sed 's/"maps".*//'; fcapsctl policy list; fcapsctl getcap $T/p; }
before=$(state)

# WANT | stderr substring | arguments
while IFS='|' read -r want msg args; do
	[ -z "$want" ] && continue
	eval "set -- $args"
	fcapsctl "$@" >$T/out 2>$T/err
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$msg" $T/err && [ ! -s $T/out ]; then
		pass "fcapsctl $args: exit $want, '$msg'"
	else
		fail "fcapsctl $args: exit $rc (want $want), stderr $(head -c 300 $T/err), stdout $(head -c 100 $T/out)"
	fi
done <<ROWS
2|usage:|
2|unknown command 'bogus'|bogus
2|needs PATH and CAPTEXT|setcap
2|needs PATH and CAPTEXT|setcap $T/p
2|needs PATH and CAPTEXT|setcap $T/p cap_kill+ep extra
2|is not capability text|setcap $T/p cap_bogus+e
2|empty capability text|setcap $T/p ''
2|empty capability text|setcap $T/p '  '
2|--format must be v1 or v3|setcap --format v9 $T/p cap_kill+e
2|unrecognized option|setcap --bogus $T/p cap_kill+e
1|No such file or directory|setcap /nonexistent cap_kill+ep
2|needs at least one PATH|getcap
2|unrecognized option|getcap --bogus $T/p
1|No such file or directory|getcap /nonexistent
2|--mode is enforce or shadow|load --mode bogus
2|--record is all, denied or none|load --record bogus
2|--kernel-records needs --record all|load --record none --kernel-records
2|--kernel-records needs --record all|load --record denied --kernel-records
2|unrecognized option|load --bogus
2|unexpected argument 'extra'|load extra
2|--policy-max is 1 to|load --policy-max 0
2|--policy-max is 1 to|load --policy-max 12x
2|--ceiling-max is 1 to|load --ceiling-max -1
2|--ceiling-max is 1 to|load --ceiling-max 99999999999
2|--ceiling-buckets is a power of two from 1 to 4096, not '3'|load --ceiling-buckets 3
2|--ceiling-buckets is a power of two from 1 to 4096|load --ceiling-buckets 0
2|--ceiling-buckets is a power of two from 1 to 4096|load --ceiling-buckets 8192
2|--ceiling-buckets is a power of two from 1 to 4096|load --ceiling-buckets 4k
2|--mark-max is 1 to 65536, not '0'|load --mark-max 0
2|--mark-max is 1 to 65536|load --mark-max 65537
1|already loaded|load
1|No such file or directory|load --policy /nonexistent
1|not a regular file|load --policy $T/dir
1|binary data|load --policy $T/binary.policy
1|line longer than 4096 bytes|load --policy $T/long.policy
1|empty capability text|load --policy $T/empty.policy
1|a component is a symbolic link|load --policy $T/link.policy
2|--policy-max is 1 to|load --policy-max -18446744073709551615
2|unexpected argument 'extra'|unload extra
2|fcapsctl status: unrecognized option '--bogus'|status --bogus
2|needs one argument|mode
2|the mode is enforce or shadow|mode bogus
2|needs at least one switch|set
2|is not exec=0|set exec=2
2|is not exec=0|set foo=1
2|is not exec=0|set e=1
2|is not exec=0|set =1
2|fcapsctl decisions: unrecognized option '--bogus'|decisions --bogus
2|needs a subcommand|policy
2|unknown subcommand 'bogus'|policy bogus
2|bad arguments to 'policy import'|policy import
1|No such file or directory|policy import /nonexistent
1|not a regular file|policy import $T/dir
1|binary data|policy import $T/binary.policy
1|line longer than 4096 bytes|policy import $T/long.policy
1|/nonexistent: No such file or directory|policy import $T/big.policy
1|empty capability text|policy import $T/empty.policy
1|empty capability text|policy import --replace $T/emptyv1.policy
1|a component is a symbolic link|policy import --replace $T/link.policy
1|Input/output error|policy import --replace /proc/self/mem
2|bad arguments to 'policy add'|policy add $T/p
1|No such file or directory|policy add /nonexistent cap_kill+ep
1|is not capability text|policy add $T/p cap_bogus+e
1|empty capability text|policy add $T/p ''
1|empty capability text|policy add $T/p '  '
1|empty capability text|policy add $T/p 'v1 '
1|a component is a symbolic link|policy add $T/plink cap_kill+ep
1|a component is a symbolic link|policy add $T/dlink/p cap_kill+ep
1|a component is a symbolic link|policy del $T/dlink/p
1|a component is a symbolic link|policy scan $T/dlink
1|No such file or directory|policy del /nonexistent
1|has no policy entry|policy del /etc/passwd
1|No such file or directory|policy scan /nonexistent
2|bad arguments to 'policy list'|policy list extra
ROWS
check_out "nothing changed: status, policy and the file's value" "$before" state
fcapsctl unload >/dev/null
finish
