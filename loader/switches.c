// SPDX-License-Identifier: GPL-2.0
/* mode, set: the BPF side's mode and switches (SEMANTICS section 5). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "main.h"
#include "pins.h"

static const char switches_usage[] =
	"usage: fcapsctl mode enforce|shadow\n"
	"       fcapsctl set [exec=0|1] [kill=0|1] [nosuid_ignore=0|1]...\n"
	"\n"
	"mode: enforce returns the decisions; shadow only records them. Enforce\n"
	"needs the bpf LSM active (" LSM_LIST ").\n"
	"set: the BPF side's switches (SEMANTICS section 5).\n";

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

int do_mode(int argc, char **argv)
{
	struct fcaps_config cfg;
	int c, done;

	while ((c = next_opt(argc, argv, "h", help_only, "mode", switches_usage, &done)) != -1)
		return done;
	if (argc - optind != 1)
		return p_usage("mode", switches_usage, "needs one argument");
	if (parse_mode(argv[optind], &cfg.mode))
		return p_usage("mode", switches_usage, "the mode is enforce or shadow");
	/* as load refuses it: enforce without the bpf LSM enforces nothing */
	if (cfg.mode == FCAPS_MODE_ENFORCE && bpf_lsm_active() != 1)
		return p_err("mode", "the bpf LSM is not active (%s does not list bpf): "
			     "enforce would enforce nothing; boot with lsm=...,bpf", LSM_LIST);
	if (lock_state("mode") < 0 || read_config(&cfg))
		return 1;
	parse_mode(argv[optind], &cfg.mode);
	return write_config(&cfg) ? p_err("mode", "updating config: %s", strerror(errno)) : 0;
}

/* The switch that @arg ("name=0|1") sets, its value into @on; NULL if none */
static __u32 *switch_of(struct fcaps_config *cfg, const char *arg, __u32 *on)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!eq || (strcmp(eq + 1, "0") && strcmp(eq + 1, "1")))
		return NULL;
	*on = eq[1] == '1';
	if (n == 4 && !strncmp(arg, "exec", n))
		return &cfg->exec;
	if (n == 4 && !strncmp(arg, "kill", n))
		return &cfg->kill;
	if (n == 13 && !strncmp(arg, "nosuid_ignore", n))
		return &cfg->nosuid_ignore;
	return NULL;
}

int do_set(int argc, char **argv)
{
	struct fcaps_config cfg = {};
	int c, done;
	__u32 on;

	while ((c = next_opt(argc, argv, "h", help_only, "set", switches_usage, &done)) != -1)
		return done;
	if (optind == argc)
		return p_usage("set", switches_usage, "needs at least one switch");
	/* every argument checked before anything is written */
	for (int i = optind; i < argc; i++)
		if (!switch_of(&cfg, argv[i], &on))
			return p_usage("set", switches_usage,
				       "'%s' is not exec=0|1, kill=0|1 or nosuid_ignore=0|1",
				       argv[i]);
	if (lock_state("set") < 0 || read_config(&cfg))
		return 1;
	for (int i = optind; i < argc; i++) {
		__u32 *sw = switch_of(&cfg, argv[i], &on);

		*sw = on;
	}
	return write_config(&cfg) ? p_err("set", "updating config: %s", strerror(errno)) : 0;
}
