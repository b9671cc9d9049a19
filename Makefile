# fcaps: build the guest kernels, BPF programs, loader and initramfs; boot
# and test. `make help` lists the targets.

FCAPS_CACHE ?= $(HOME)/.cache/fcaps
export FCAPS_CACHE
BUILD := build
# The kernel line the guest targets boot: Debian 12's 6.1 or Debian 13's
# 6.12 (make diff KVER=6.12); each flavour has a build on both lines.
KVER ?= 6.1
ifeq ($(filter 6.1 6.12,$(KVER)),)
$(error KVER=$(KVER): the kernel lines are 6.1 and 6.12)
endif
LINE := $(if $(filter 6.12,$(KVER)),-6.12)
KERNEL ?= patched

CLANG ?= clang
BPFTOOL ?= bpftool
CC := gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-missing-field-initializers -I$(BUILD) -Ibpf \
	-Iloader -Itests/lib
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(BUILD) -Ibpf
STATIC_LIBS := -static -lbpf -lelf -lz -lzstd

KSRC_TARBALL := /usr/src/linux-source-6.1.tar.xz
# A kernel is rebuilt when the hash of its inputs changes, not their mtimes:
# a series edited while a build runs must not look built. build-kernel
# itself decides what to re-extract, reconfigure or recompile.
KCOMMON := vmconfig/build-kernel vmconfig/fcaps.config
KPATCHED := $(KCOMMON) vmconfig/patched.config kernel-patch/6.1/series \
	$(wildcard kernel-patch/6.1/*.patch)
# The second line, Debian 13's 6.12: the same fcaps, its own series
KPATCHED_612 := $(KCOMMON) vmconfig/patched.config kernel-patch/6.12/series \
	$(wildcard kernel-patch/6.12/*.patch)
khash = $(shell cat $(1) | sha256sum | cut -c1-16)
kstamp = $(FCAPS_CACHE)/build-$(1)/.fcaps-built-$(2)
KPLANTED := $(KPATCHED) tests/diff/kernel-plants.patch
KSTAMP_PATCHED := $(call kstamp,patched,$(call khash,$(KPATCHED)))
KSTAMP_STOCK := $(call kstamp,stock,$(call khash,$(KCOMMON)))
KSTAMP_PLANTED := $(call kstamp,planted,$(call khash,$(KPLANTED)))
KSTAMP_DEBUG := $(call kstamp,debug,$(call khash,$(KPATCHED) vmconfig/debug.config))
KSTAMP_PATCHED_612 := $(call kstamp,patched-6.12,$(call khash,$(KPATCHED_612)))
KSTAMP_STOCK_612 := $(call kstamp,stock-6.12,$(call khash,$(KCOMMON)))
KPLANTED_612 := $(KPATCHED_612) tests/diff/kernel-plants-6.12.patch
KSTAMP_PLANTED_612 := $(call kstamp,planted-6.12,$(call khash,$(KPLANTED_612)))
KSTAMP_DEBUG_612 := $(call kstamp,debug-6.12,$(call khash,$(KPATCHED_612) vmconfig/debug.config))

vpath %.bpf.c bpf tests/guest
GUEST_PROGS := smoke_lsm runas fcaps_probe fcaps_probe_dyn fcaps_status fcaps_scenarios fcaps_workload fcapsctl fcaps_stress \
	fcaps_sweep fcaps_bench floor fcaps_tamper fcaps_audit
GUEST_BINS := $(GUEST_PROGS:%=$(BUILD)/guest-bin/%)
GUEST_TESTS := $(wildcard tests/guest/*.sh) tests/lib/tap.sh
HOST_TESTS := $(BUILD)/tests/test_fcaps $(BUILD)/tests/test_policy
TEST_IMAGES := $(BUILD)/test/smoke.ext4 $(BUILD)/test/fcaps.ext4
# BPF builds with one planted bug each, for the differential's self-check:
# the bpf rows of the one list, tests/diff/plants.txt
PLANTS := $(shell sed -n 's/^\([A-Z0-9_]*\)[[:space:]]*|[[:space:]]*bpf[[:space:]]*|.*/\1/p' \
	tests/diff/plants.txt)
PLANTED := $(PLANTS:%=$(BUILD)/planted/%/fcapsctl)
# fcapsctl of a config laid out differently, for bpf.sh (defined before
# `test:`, whose prerequisites are expanded as make reads them)
LAYOUT_VARIANT := $(BUILD)/variant/layout/fcapsctl

.PHONY: all deps kernels shell test test-debug help clean run check-series diff diff-selfcheck \
	planted variants stress fuzz sweep bench bench-lines campaign diff-lines
.DELETE_ON_ERROR:
.SECONDARY:

all: kernels $(BUILD)/initramfs.cpio $(HOST_TESTS) $(TEST_IMAGES) $(BUILD)/fcaps_abi.py

help:
	@echo "make            build both kernels, BPF objects, binaries, initramfs"
	@echo "make diff       build, boot, run the differential (SEED=1 EVENTS=5000 LANES=2 guests)"
	@echo "make run        build, boot the patched kernel, run the scenario table"
	@echo "make diff-selfcheck  the differential against each planted BPF bug"
	@echo "make diff-lines the differential's two lines side by side (after KVER=6.1, 6.12)"
	@echo "make campaign   SEEDS=1-16 EVENTS=2000 JOBS=N [HOSTS=FILE]: many seeds, one report"
	@echo "make check-series    build every prefix of the kernel series"
	@echo "make shell      interactive guest shell (KERNEL=patched|stock|planted|debug)"
	@echo "make test       host unit tests and guest tests; ends 'N passed, N failed'"
	@echo "make test-debug the guest suites on the debug kernel (KASAN, lockdep)"
	@echo "make stress     DURATION=60: stress with exact counts"
	@echo "make fuzz       libFuzzer targets, FUZZ_SECONDS=600 each"
	@echo "make bench      build, boot once, benchmark every mode (BENCH_ROUNDS=3 BENCH_SCALE=1)"
	@echo "make bench-lines    make bench's two lines in one table (after KVER=6.1, 6.12)"
	@echo "make sweep      malformed-value sweep on both enforcement paths"
	@echo "make kernels    build the patched and stock guest kernels only"
	@echo "make deps       install missing Debian packages"
	@echo "make clean      remove build/ (kernel trees stay in \$$FCAPS_CACHE)"
	@echo "Variables: KVER=6.1|6.12 (the kernel line of run, shell, diff, campaign, bench,"
	@echo "           sweep, test-debug, diff-selfcheck)  KERNEL=patched|stock  ACCEL=kvm"
	@echo "           FCAPS_CACHE=$(FCAPS_CACHE)"

deps:
	@vmconfig/install-deps

$(KSRC_TARBALL):
	vmconfig/install-deps

kernels: $(KSTAMP_PATCHED) $(KSTAMP_STOCK) $(KSTAMP_PATCHED_612) $(KSTAMP_STOCK_612)

# One rule for every flavour's stamp: the flavour is its build directory's
# name (build-FLAVOUR). The differential's self-check boots the planted
# ones with fcaps_plant=NAME.
KSTAMPS := $(KSTAMP_PATCHED) $(KSTAMP_STOCK) $(KSTAMP_PATCHED_612) $(KSTAMP_STOCK_612) \
	$(KSTAMP_DEBUG) $(KSTAMP_DEBUG_612) $(KSTAMP_PLANTED) $(KSTAMP_PLANTED_612)
$(KSTAMPS): | deps
	vmconfig/build-kernel $(patsubst build-%,%,$(notdir $(patsubst %/,%,$(dir $@))))
	rm -f $(dir $@).fcaps-built-* && touch $@

# BTF of the patched kernel: a superset of stock's (it adds the tracepoints).
$(BUILD)/vmlinux.h: $(KSTAMP_PATCHED)
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(FCAPS_CACHE)/build-patched/vmlinux format c > $@

# The one definition (bpf/fcaps.h: format.h, abi.h) and this build's plants.h
ABI_HEADERS := bpf/fcaps.h bpf/format.h bpf/abi.h $(BUILD)/plants.h
BPF_HEADERS := $(wildcard bpf/*.h) $(BUILD)/plants.h

# A production build plants no bug (tests/diff/plants_h.sh)
$(BUILD)/plants.h: tests/diff/plants_h.sh tests/diff/plants.txt
	@mkdir -p $(@D)
	tests/diff/plants_h.sh none > $@
$(BUILD)/bpf/%.bpf.o: %.bpf.c $(BUILD)/vmlinux.h $(BPF_HEADERS) | deps
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# One .bpf.c per concern, linked into one object and one skeleton.
FCAPS_BPF := shared exec signal channels policy kernel ceiling dumpable integrity pins knobs
$(BUILD)/bpf/fcaps.bpf.o: $(FCAPS_BPF:%=$(BUILD)/bpf/%.bpf.o)
	$(BPFTOOL) gen object $@ $^

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

$(BUILD)/guest-bin/smoke_lsm: tests/guest/smoke_lsm.c $(BUILD)/smoke_lsm.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(STATIC_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/lib/tap.c tests/lib/tap.h $(ABI_HEADERS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< tests/lib/tap.c -o $@

$(BUILD)/tests/test_policy: tests/unit/test_policy.c loader/policyfile.c loader/scan.c loader/walk.c \
		loader/filekey.c loader/capfile.c loader/config.c tests/lib/tap.c \
		$(wildcard loader/*.h) $(ABI_HEADERS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(filter %.c,$^) -o $@ -lcap

# bpf/fcaps.h for the harness's Python: its constants, and the record's
# fields from the BPF object's BTF
$(BUILD)/fcaps_abi.py: tests/lib/abi_py.c $(ABI_HEADERS) $(BUILD)/bpf/fcaps.bpf.o
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) $< -o $(BUILD)/tests/abi_py
	{ $(BUILD)/tests/abi_py && printf 'RECORD_FIELDS = [%s]\n' "$$($(BPFTOOL) btf dump file \
		$(BUILD)/bpf/fcaps.bpf.o format raw | awk '/STRUCT .fcaps_decision./ { on = 1; next } \
		on && /^\t/ { printf "%s, ", $$1; next } { on = 0 }')"; } > $@.tmp && mv $@.tmp $@

$(BUILD)/tests/mkvalues: tests/lib/mkvalues.c tests/lib/fcaps_values.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

FCAPSCTL_SRCS := $(wildcard loader/*.c)
$(BUILD)/guest-bin/fcapsctl: $(FCAPSCTL_SRCS) $(wildcard loader/*.h) $(ABI_HEADERS) \
		$(BUILD)/fcaps.skel.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FCAPSCTL_SRCS) -o $@ $(STATIC_LIBS) -lcap -ljson-c

# Every event of the differential runs the probe two or more times: with
# musl's start-up and system calls for its status line an exec of it costs
# TCG about half what a static glibc one does (docs/benchmark.md). musl
# ships no kernel headers: the build's own view of the system's.
MUSL_KHDR := $(BUILD)/musl-khdr
$(MUSL_KHDR): | deps
	@mkdir -p $@
	ln -sfn /usr/include/linux /usr/include/asm-generic $@/
	ln -sfn /usr/include/$(shell gcc -dumpmachine)/asm $@/asm

$(BUILD)/guest-bin/fcaps_probe: tests/guest/fcaps_probe.c tests/guest/battery.c \
		tests/guest/battery.h tests/guest/probe_ops.c tests/guest/probe_ops.h \
		tests/guest/status_line.h | $(MUSL_KHDR)
	@mkdir -p $(@D)
	musl-gcc $(CFLAGS) -idirafter $(MUSL_KHDR) -static $(filter %.c,$^) -o $@

# The same, dynamic, with an ELF interpreter of its own name (a copy of
# the guest's ld.so), which fcaps_probe lease can hold: bpf.sh stops an
# exec between its check and its enforcing program.
PROBE_INTERP := /tmp/fcaps-ld.so
$(BUILD)/guest-bin/fcaps_probe_dyn: tests/guest/fcaps_probe.c tests/guest/battery.c \
		tests/guest/battery.h tests/guest/probe_ops.c tests/guest/probe_ops.h \
		tests/guest/status_line.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(filter %.c,$^) -o $@ -Wl,--dynamic-linker=$(PROBE_INTERP)

# What xattr events copy afresh and run: no libc, whose start-up TCG would
# translate again for every fresh copy
$(BUILD)/guest-bin/fcaps_status: tests/guest/fcaps_status.c tests/guest/status_line.h
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -static -nostdlib -ffreestanding -fno-stack-protector -no-pie \
		$< -o $@

SCENARIO_DEPS := tests/guest/scenario.c tests/guest/scenario.h tests/guest/xattr_event.c \
	tests/guest/xattr_event.h tests/guest/caps_event.c tests/guest/caps_event.h \
	tests/guest/catalogue.h tests/guest/copy_file.h tests/guest/battery.h tests/lib/tap.c tests/lib/tap.h \
	tests/lib/fcaps_values.h $(ABI_HEADERS) loader/ring.c loader/ring.h \
	loader/config.c loader/config.h
# the workload runs each event in a process of its own (event_guard.c) and
# empties the rings of a long run (ring_drain.c)
WORKLOAD_SRCS := tests/guest/event_guard.c tests/guest/event_spec.c tests/guest/ring_drain.c
$(BUILD)/guest-bin/fcaps_workload: EXTRA_SRCS := $(WORKLOAD_SRCS)
$(BUILD)/guest-bin/fcaps_workload: $(WORKLOAD_SRCS) $(WORKLOAD_SRCS:.c=.h)
$(BUILD)/guest-bin/fcaps_scenarios $(BUILD)/guest-bin/fcaps_workload: \
		$(BUILD)/guest-bin/%: tests/guest/%.c $(SCENARIO_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/guest $< tests/guest/scenario.c tests/guest/xattr_event.c \
		tests/guest/caps_event.c tests/lib/tap.c loader/ring.c loader/config.c $(EXTRA_SRCS) -o $@ \
		$(STATIC_LIBS)

# Legacy values written raw and offline, malformed ones included.
$(BUILD)/test/fcaps.ext4: tests/lib/mkimage $(BUILD)/guest-bin/fcaps_probe \
		$(BUILD)/tests/mkvalues | deps
	@mkdir -p $(@D)
	tests/lib/mkimage $@ $(BUILD)/guest-bin/fcaps_probe $(BUILD)/tests/mkvalues

$(BUILD)/initramfs.cpio: vmconfig/mkinitramfs vmconfig/init vmconfig/passwd \
		vmconfig/group $(GUEST_BINS) $(GUEST_TESTS) | deps
	@rm -rf $(BUILD)/guest-tests && mkdir -p $(BUILD)/guest-tests
	cp $(GUEST_TESTS) $(BUILD)/guest-tests/
	vmconfig/mkinitramfs $@ $(BUILD)/guest-bin $(BUILD)/guest-tests

$(BUILD)/test/smoke.ext4: | deps
	@rm -rf $@.d && mkdir -p $@.d
	echo "fcaps ext4 smoke" > $@.d/hello.txt
	mkfs.ext4 -q -F -d $@.d $@ 8M
	@rm -rf $@.d

shell: all
	vmconfig/run-vm --kernel $(KERNEL)$(LINE)

test: all variants $(KSTAMP_PLANTED) $(KSTAMP_PLANTED_612)
	tests/run

$(BUILD)/guest-bin/fcaps_stress: tests/guest/fcaps_stress.c tests/lib/tap.c \
		tests/lib/tap.h $(ABI_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static $(filter %.c,$^) -o $@

$(BUILD)/guest-bin/floor: tests/guest/floor.c $(BUILD)/floor.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(STATIC_LIBS)

$(BUILD)/guest-bin/fcaps_bench: tests/guest/fcaps_bench.c loader/ring.c loader/ring.h \
		$(ABI_HEADERS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iloader -pthread $(filter %.c,$^) -o $@ $(STATIC_LIBS)

# One boot, every mode interleaved; build/bench/report.{md,json}, ratios.png.
bench: all
	tests/bench/run --kernel patched$(LINE) $(if $(LINE),--out $(BUILD)/bench$(LINE))

# make bench and make bench KVER=6.12 side by side, from their icount reports
bench-lines:
	tests/bench/lines.py $(BUILD)/bench/report-icount.json \
		$(BUILD)/bench-6.12/report-icount.json > $(BUILD)/bench-lines.md
	cat $(BUILD)/bench-lines.md

$(BUILD)/guest-bin/fcaps_sweep: tests/guest/fcaps_sweep.c tests/lib/tap.c \
		tests/lib/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static $(filter %.c,$^) -o $@

FUZZ_SECONDS ?= 600
# libFuzzer targets on the formats, the policy parser and capability text
fuzz: $(BUILD)/plants.h | deps
	tests/fuzz/run $(FUZZ_SECONDS)

# Every value size 0-64 x tag x bit, exec'd on both paths (patched kernel)
sweep: all
	tests/sweep/run $(if $(LINE),--kernel patched$(LINE))

DURATION ?= 60
# DURATION s of execs, signals, renices, value rewrites, policy edits and
# mode flips; then every record accounted for.
stress: all
	tests/stress/run --duration $(DURATION)

# The patched kernel under KASAN, lockdep and panic_on_warn (not part of
# make test: a fourth kernel does not fit CI's 90 minutes from cold).
test-debug: all variants $(if $(LINE),$(KSTAMP_DEBUG_612),$(KSTAMP_DEBUG))
	tests/run-debug debug$(LINE)

clean:
	rm -rf $(BUILD)

$(BUILD)/guest-bin/fcaps_tamper: tests/guest/fcaps_tamper.c tests/guest/tamper_tty.c \
		tests/guest/tamper_tty.h tests/guest/tamper_reuse.c tests/guest/tamper_reuse.h \
		tests/guest/copy_file.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(filter %.c,$^) -o $@ $(STATIC_LIBS)

$(BUILD)/guest-bin/fcaps_audit: tests/guest/fcaps_audit.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static $< -o $@

$(BUILD)/guest-bin/runas: tests/guest/runas.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static $< -o $@

# The main job until the differential lands: the scenario table on the
# patched kernel, printed decision by decision.
run: all
	cp $(BUILD)/test/fcaps.ext4 $(BUILD)/test/run.ext4
	vmconfig/run-vm --kernel patched$(LINE) --disk $(BUILD)/test/run.ext4 -- fcaps_scenarios

check-series: $(KSTAMP_STOCK)
	tests/check-series

# fcapsctl of another build in $(@D): the BPF objects and the loader with
# the plants.h of $(1) (a planted bug, or "layout": plants_h.sh)
VARIANT_DEPS := $(FCAPS_BPF:%=bpf/%.bpf.c) $(BPF_HEADERS) $(BUILD)/vmlinux.h \
	$(FCAPSCTL_SRCS) $(wildcard loader/*.h) tests/diff/plants_h.sh tests/diff/plants.txt
define variant_fcapsctl
	@mkdir -p $(@D)
	tests/diff/plants_h.sh $(1) > $(@D)/plants.h
	for s in $(FCAPS_BPF); do \
		$(CLANG) -I$(@D) $(BPF_CFLAGS) -c bpf/$$s.bpf.c -o $(@D)/$$s.bpf.o || exit 1; \
	done
	$(BPFTOOL) gen object $(@D)/fcaps.bpf.o $(FCAPS_BPF:%=$(@D)/%.bpf.o)
	$(BPFTOOL) gen skeleton $(@D)/fcaps.bpf.o name fcaps_bpf > $(@D)/fcaps.skel.h
	$(CC) -I$(@D) $(CFLAGS) $(FCAPSCTL_SRCS) -o $@ $(STATIC_LIBS) -lcap -ljson-c
endef

# The differential's self-check: one fcapsctl per planted BPF bug.
$(BUILD)/planted/%/fcapsctl: $(VARIANT_DEPS)
	$(call variant_fcapsctl,$*)

# A build whose config is laid out differently (bpf.sh: another build's pins)
$(LAYOUT_VARIANT): $(VARIANT_DEPS)
	$(call variant_fcapsctl,layout)

planted: $(PLANTED)

# Every variant is a build of its own: one a core at once
variants:
	$(MAKE) -j$(shell nproc) $(PLANTED) $(LAYOUT_VARIANT)

SEED ?= 1
EVENTS ?= 5000
# The main job: build, boot, run the differential (catalogue + EVENTS random
# events from SEED, shadow and swap), report under build/diff/.
LANES ?= 2
diff: all
	tests/diff/run --seed $(SEED) --events $(EVENTS) --lanes $(LANES) --kernel patched$(LINE)

# Many seeds in parallel guests (GNU parallel; HOSTS: its --sshloginfile),
# disagreements grouped by signature in build/campaign/events-EVENTS/.
SEEDS ?= 1-16
JOBS ?= $(shell nproc)
campaign: all
	tests/diff/campaign --seeds $(SEEDS) --events $(EVENTS) --jobs $(JOBS) \
		$(if $(HOSTS),--hosts $(HOSTS)) \
		--out $(or $(CAMPAIGN_OUT),$(BUILD)/campaign$(LINE)/events-$(EVENTS)) \
		$(if $(LINE),-- --kernel patched$(LINE))

# make diff's two lines side by side (after make diff and make diff KVER=6.12)
diff-lines:
	tests/diff/lines.py $(BUILD)/diff/seed-$(SEED)-events-$(EVENTS) \
		$(BUILD)/diff/patched-6.12/seed-$(SEED)-events-$(EVENTS) \
		> $(BUILD)/diff/lines-seed-$(SEED)-events-$(EVENTS).md
	cat $(BUILD)/diff/lines-seed-$(SEED)-events-$(EVENTS).md

diff-selfcheck: all $(PLANTED) $(if $(LINE),$(KSTAMP_PLANTED_612),$(KSTAMP_PLANTED))
	tests/diff/selfcheck $(if $(LINE),--line $(KVER))
