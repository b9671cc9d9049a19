// SPDX-License-Identifier: GPL-2.0
/*
 * floor load|unload|status: the benchmark's floor (floor.bpf.c: empty
 * programs on the hooks fcaps uses). load attaches every program, pins
 * each link under /sys/fs/bpf/floor (so they outlive this process, as
 * fcapsctl's do) and prints "attached"; unload removes the pins, which
 * detaches them; status lists the pins and exits 1 if there are none.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

#define PIN_DIR "/sys/fs/bpf/floor"

/* Remove every pin under PIN_DIR and the directory; how many. */
static int unpin(void)
{
	char path[512];
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(PIN_DIR);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PIN_DIR "/%s", e->d_name);
		if (!unlink(path))
			n++;
	}
	closedir(d);
	rmdir(PIN_DIR);
	return n;
}

static int load(void)
{
	struct floor_bpf *skel;
	struct bpf_program *prog;
	char path[512];
	int n = 0, rc = 1;

	if (!access(PIN_DIR, F_OK)) {
		fprintf(stderr, "floor: %s exists ('floor unload' first)\n", PIN_DIR);
		return 1;
	}
	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "floor: loading floor.bpf.o: %s\n", strerror(errno));
		return 1;
	}
	if (mkdir(PIN_DIR, 0700)) {
		fprintf(stderr, "floor: mkdir %s: %s\n", PIN_DIR, strerror(errno));
		goto out;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link = bpf_program__attach(prog);

		if (!link) {
			fprintf(stderr, "floor: attaching %s: %s\n", bpf_program__name(prog),
				strerror(errno));
			goto undo;
		}
		snprintf(path, sizeof(path), PIN_DIR "/%s", bpf_program__name(prog));
		if (bpf_link__pin(link, path)) {
			fprintf(stderr, "floor: pinning %s: %s\n", path, strerror(errno));
			bpf_link__destroy(link);
			goto undo;
		}
		bpf_link__destroy(link);	/* the pin holds it */
		n++;
	}
	printf("attached: %d programs, links pinned under %s\n", n, PIN_DIR);
	rc = 0;
	goto out;
undo:
	unpin();
out:
	floor_bpf__destroy(skel);
	return rc;
}

static int status(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(PIN_DIR);

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			printf("%s%s", n++ ? " " : "", e->d_name);
	if (d)
		closedir(d);
	printf(n ? "\n" : "floor: not loaded\n");
	return n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "load"))
		return load();
	if (argc == 2 && !strcmp(argv[1], "unload")) {
		printf("unloaded: %d pins removed\n", unpin());
		return access(PIN_DIR, F_OK) ? 0 : 1;
	}
	if (argc == 2 && !strcmp(argv[1], "status"))
		return status();
	fprintf(stderr, "usage: floor load|unload|status\n"
		"Empty BPF programs on the hooks fcaps uses (the benchmark's floor),\n"
		"links pinned under %s.\n", PIN_DIR);
	return argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? 0 : 2;
}
