/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FCAPS_WALK_H
#define FCAPS_WALK_H

/* What a walk does with what it finds (the caller's struct embeds it) */
struct walk {
	/* a regular file, @name in the directory open as @dirfd */
	void (*file)(struct walk *w, int dirfd, const char *name, const char *path);
	/* an entry changed while walked (gone, moved, refused to root) */
	void (*skip)(struct walk *w, const char *path, const char *why);
	/* an error that must fail the walk: sets failed, which stops it */
	void (*fail)(struct walk *w, const char *path, const char *why);
	int failed;
};

/* Walk the tree open as @rootfd (named @root in messages), mounts below
 * it included, calling @w's hooks */
void walk_tree(struct walk *w, int rootfd, const char *root);

#endif
