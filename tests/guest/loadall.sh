# Every BPF build loads and enforces here: the production fcapsctl and each
# planted variant under /fcaps/planted/NAME/fcapsctl (one BPF object and one
# binary for every kernel line: CO-RE, no second build). Each load attaches
# every program of its mode (the verifier's log is printed on failure),
# status --json gives the verifier's steps over every pinned program, and
# the production build enforces: a legacy-capped root loses sethostname.
. /fcaps/tests/lib.sh
echo "every BPF build on $(uname -r)" | diag
D=/tmp/loadall
mkdir -p $D
# a capped copy by a policy line: the stock kernels refuse legacy values
cp /usr/local/bin/fcaps_probe $D/raw && echo "$D/raw cap_net_raw+ep" > $D/policy

# loads CTL MODE: CTL loads in MODE, every pinned program verified, unloads
loads() {
	out=$($1 load --mode "$2" --policy $D/policy 2>&1) || { echo "$out" | tail -n 30; return 1; }
	steps=$($1 status --json | tr -d ' \n' | sed -n 's/.*"verified_insns":{\([^}]*\)}.*/\1/p')
	echo "$steps" | tr ',' '\n' | sed 's/^/# /'
	if [ -z "$steps" ] || echo "$steps" | tr ',' '\n' | grep -qE ':(-1|0)$'; then
		$1 unload > /dev/null
		return 1
	fi
	$1 unload > /dev/null
}
for m in shadow enforce; do
	check "fcapsctl loads in $m mode, every program verified" loads fcapsctl $m
done
for ctl in /fcaps/planted/*/fcapsctl; do
	[ -x "$ctl" ] || continue
	name=$(basename "$(dirname "$ctl")")
	check "planted $name loads (enforce), every program verified" loads "$ctl" enforce
done
step "enforce" fcapsctl load --mode enforce --policy $D/policy
sethostname() { $D/raw battery $$ 1 | tr ' ' '\n' | grep '^bat_sethostname='; }
check_out "a root running a cap_net_raw+ep file cannot sethostname" "bat_sethostname=0" sethostname
fcapsctl unload > /dev/null
finish
