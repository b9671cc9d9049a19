// SPDX-License-Identifier: GPL-2.0
/*
 * The random event's text form, written (event_spec_name) and read back
 * (event_spec_parse). The reader accepts exactly what the writer writes,
 * so a text that reads is one the workload can run and that names it.
 */
#define _GNU_SOURCE
#include "event_spec.h"

const struct xattr_actor xattr_actors[] = {
	{ "uid 1000", U }, { "root", 0 },
	{ "uid 1000 holding cap_setfcap", U, SETFCAP },
	{ "uid 1000 holding cap_sys_admin", U, SYSADMIN },
	{ "capped root", 0, 0, CHAIN(FC "v1_raw_ep") },
	{ "capped root with cap_setfcap", 0, 0, CHAIN(FC "v1_setfcap") },
	{ "capped root (empty sets)", 0, 0, CHAIN(FC "v1_empty") },
	{ "uid 1000's namespace root", U, 0, CHAIN(FC "plain", "--userns") },
	{ "root's namespace root", 0, 0, CHAIN(FC "plain", "--userns") },
	{ "a namespace root nested under root's", 0, 0,
	  CHAIN(FC "plain", "--userns-nested", "1000") },
};
const size_t n_xattr_actors = sizeof(xattr_actors) / sizeof(xattr_actors[0]);

#define ADD(...) (k = strlen(s), snprintf(s + k, len - k, __VA_ARGS__))

static void name_caps(const struct rand_event *e, char *s, size_t len)
{
	size_t k;

	ADD("caps %s", e->k.op);
	if (e->k.file)
		ADD(" %s", e->k.file);
	else
		ADD(" %#lx", e->k.arg);
	ADD(" by uid %u", e->k.c.uid);
	for (int i = 0; e->k.chain && e->k.chain[i]; i++)
		ADD("%s%s", i ? " " : ": ", e->k.chain[i]);
}

static void name_exec(const struct rand_event *e, char *s, size_t len)
{
	const struct creds *c = &e->c;
	size_t k;

	if (e->chain[0]) {
		ADD("chain uid %u:", c->uid);
		for (int i = 0; e->chain[i]; i++)
			ADD(" %s", e->chain[i]);
		ADD(" %s", e->file);
	} else {
		ADD("exec %s uid %u", e->file, c->uid);
		if (c->seteuid)
			ADD(" euid %u", c->euid);
		ADD(" pI=%#llx pA=%#llx", (unsigned long long)c->pi, (unsigned long long)c->pa);
		if (c->bset_drop)
			ADD(" bset-=%#llx", (unsigned long long)c->bset_drop);
		if (c->securebits)
			ADD(" securebits=%#x", c->securebits);
		if (c->nnp)
			ADD(" nnp");
		if (c->traced)
			ADD(c->tracer_cap ? " traced-by-root" : " traced-by-self");
		if (c->shared_fs)
			ADD(" shared_fs");
	}
	if (e->sw.exec_off)
		ADD(" exec=0");
	if (e->sw.nosuid_ignore)
		ADD(" nosuid_ignore=1");
}

static void name_pair(const struct pair_row *r, char *s, size_t len)
{
	size_t k;

	if (r->thread) {
		ADD("thread %s uid %u sig %d %s", r->target, r->tuid, r->sig,
		    r->thread_drop ? "drop" : "keep");
	} else {
		ADD("%s %s uid %u", r->op ? r->op : "kill", r->sender, r->suid);
		if (r->sender_chain)
			ADD(" chain");
		for (int i = 1; r->sender_chain && r->sender_chain[i]; i++)
			ADD(" %s", r->sender_chain[i]);
		if (r->seteuid)
			ADD(" euid %u", r->seuid);
		if (r->sender_userns)
			ADD(" userns");
		if (r->session)
			ADD(" setsid");
		if (r->pp_only)
			ADD(" pE=0");
		ADD(" -> %s uid %u", r->target, r->tuid);
		if (r->target_userns)
			ADD(" userns");
		if (r->target_nested)
			ADD(" nested userns");
		if (r->group)
			ADD(" group+%s uid %u", r->member, r->muid);
		if (!r->op)
			ADD(" sig %d", r->sig);
	}
	if (r->sw.kill_off)
		ADD(" kill=0");
}

void event_spec_name(struct rand_event *e, const char *label)
{
	char *s = e->name;
	size_t len = sizeof(e->name), k;

	snprintf(s, len, "%s: ", label);
	k = strlen(s);
	if (e->kind == EV_CAPS)
		name_caps(e, s + k, len - k);
	else if (e->kind == EV_XATTR)
		ADD("xattr %s%s%s by %s on a file of uid %u holding %s", e->x.op,
		    e->x.value ? " " : "", e->x.value ? e->x.value : "", e->actor, e->x.owner,
		    e->x.before ? e->x.before : "nothing");
	else if (e->kind == EV_EXEC)
		name_exec(e, s + k, len - k);
	else
		name_pair(&e->r, s + k, len - k);
}
#undef ADD

/* ---- reading it back ---- */

struct words {
	char *w[64];
	int n, i;		/* count, next */
	char *why;
	size_t len;
};

static int bad(struct words *t, const char *what)
{
	if (t->i < t->n)
		snprintf(t->why, t->len, "word %d '%s': %s", t->i + 1, t->w[t->i], what);
	else
		snprintf(t->why, t->len, "at the end: %s", what);
	return -1;
}

static const char *peek(struct words *t)
{
	return t->i < t->n ? t->w[t->i] : "";
}

static int take(struct words *t, const char *word)
{
	if (strcmp(peek(t), word))
		return 0;
	t->i++;
	return 1;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The next word's index in @set, taken; or -1, with @what wanted said */
static int one_of(struct words *t, const char *const *set, size_t n, const char *what)
{
	for (size_t o = 0; o < n; o++)
		if (!strcmp(peek(t), set[o]))
			return t->i++, (int)o;
	return bad(t, what);
}

static int number(struct words *t, int base, unsigned long long max,
		  unsigned long long *v)
{
	char *end;

	if (t->i >= t->n || !*t->w[t->i])
		return bad(t, "a number wanted");
	errno = 0;
	*v = strtoull(t->w[t->i], &end, base);
	if (*end || errno || *v > max || t->w[t->i][0] == '-')
		return bad(t, "not a number in range");
	t->i++;
	return 0;
}

static int uid_word(struct words *t, uid_t *uid)
{
	unsigned long long v;

	if (!take(t, "uid"))
		return bad(t, "'uid' wanted");
	if (number(t, 10, 65535, &v))
		return -1;
	*uid = v;
	return 0;
}

/* key=NUMBER, as "%#llx" or "%#x" writes it */
static int keyed(struct words *t, const char *key, unsigned long long *v)
{
	size_t n = strlen(key);
	char *end;

	if (strncmp(peek(t), key, n))
		return 0;
	errno = 0;
	*v = strtoull(t->w[t->i] + n, &end, 16);
	if (!t->w[t->i][n] || *end || errno)
		return bad(t, "a hexadecimal number wanted");
	t->i++;
	return 1;
}

static int known_file(const char *p)
{
	return fixture(p) || (prefixed(p, IMG) && fcaps_test_value(p + strlen(IMG))) ||
	       (prefixed(p, IMGN) && fcaps_test_value(p + strlen(IMGN)));
}

static int file_word(struct words *t, int actor, const char **file)
{
	const char *p = peek(t);

	if (actor ? !fixture(p) : !known_file(p))
		return bad(t, actor ? "not a fixture (catalogue.h)" : "not a file the workload has");
	*file = p;
	t->i++;
	return 0;
}

static int digits(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s) && strlen(s) < 16;
}

/*
 * fcaps_probe's words (gen_chain) into e->chain from @n: a program, its
 * options, "exec" or "trace" and the next program...; from @n > 0 the
 * options of the program at e->chain[0] come first. With @final the words
 * end with an exec or trace (the event's file follows), else after a
 * program's options. Until a word @stop knows or the end.
 */
static int chain_words(struct words *t, struct rand_event *e, int n, int final,
		       int (*stop)(const char *))
{
	static const char *const with_arg[] = { "--inherit", "--ambient", "--setuid", "--eff",
						"--userns-nested", "--securebits" };
	const size_t nargs = sizeof(with_arg) / sizeof(with_arg[0]);
	int want_file = !n;

	while (t->i < t->n && !stop(peek(t))) {
		const char *w = peek(t);
		size_t o;

		if (n >= 22)
			return bad(t, "more chain words than the workload keeps");
		if (want_file && final && n && (t->i + 1 == t->n || stop(t->w[t->i + 1])))
			break;			/* the event's own file */
		if (want_file) {
			if (file_word(t, 0, &e->chain[n++]))
				return -1;
			want_file = 0;
			continue;
		}
		t->i++;
		if (!strcmp(w, "exec") || !strcmp(w, "trace"))
			want_file = 1;
		else if (strcmp(w, "--nnp") && strcmp(w, "--userns")) {
			for (o = 0; o < nargs && strcmp(w, with_arg[o]); o++)
				;
			if (o == nargs)
				return t->i--, bad(t, "not a chain word (an option, exec, trace, a file)");
			if (!digits(peek(t), o == nargs - 1 ? "0123456789abcdef" : "0123456789"))
				return bad(t, "the option's number wanted");
			e->chain[n++] = w;
			w = peek(t);
			t->i++;
		}
		e->chain[n++] = w;
	}
	e->chain[n] = NULL;
	if (final != want_file)
		return bad(t, final ? "exec or trace, then the event's file, wanted" :
			   "a program wanted after exec or trace");
	return 0;
}

static int exec_flag(const char *w)
{
	return !strcmp(w, "exec=0") || !strcmp(w, "nosuid_ignore=1");
}

static int end_of_sender(const char *w)
{
	return !strcmp(w, "euid") || !strcmp(w, "userns") || !strcmp(w, "setsid") ||
	       !strcmp(w, "pE=0") || !strcmp(w, "->");
}

static int end_of_words(const char *w)
{
	return !*w;
}

static int parse_exec(struct words *t, struct rand_event *e, int chain)
{
	struct creds *c = &e->c;
	unsigned long long v;

	e->kind = EV_EXEC;
	if (chain) {
		const char *w;

		if (!take(t, "uid"))
			return bad(t, "'uid U:' wanted");
		w = peek(t);
		if (!*w || w[strlen(w) - 1] != ':' || sscanf(w, "%llu", &v) != 1 || v > 65535 ||
		    strspn(w, "0123456789") != strlen(w) - 1)
			return bad(t, "'U:' wanted");
		c->uid = v;
		t->i++;
		if (chain_words(t, e, 0, 1, exec_flag))
			return -1;
		if (!e->chain[0])
			return bad(t, "a chain wanted");
		if (file_word(t, 0, &e->file))
			return -1;
	} else {
		if (file_word(t, 0, &e->file) || uid_word(t, &c->uid))
			return -1;
		if (take(t, "euid")) {
			if (number(t, 10, 65535, &v))
				return -1;
			c->seteuid = 1;
			c->euid = v;
		}
		if (keyed(t, "pI=", &c->pi) != 1 || keyed(t, "pA=", &c->pa) != 1)
			return bad(t, "pI=X pA=Y wanted");
		if (keyed(t, "bset-=", &c->bset_drop) < 0)
			return -1;
		switch (keyed(t, "securebits=", &v)) {
		case -1:
			return -1;
		case 1:
			c->securebits = v;
		}
		c->nnp = take(t, "nnp");
		c->tracer_cap = take(t, "traced-by-root");
		c->traced = c->tracer_cap || take(t, "traced-by-self");
		c->shared_fs = take(t, "shared_fs");
	}
	e->sw.exec_off = take(t, "exec=0");
	e->sw.nosuid_ignore = take(t, "nosuid_ignore=1");
	return 0;
}

static int parse_pair(struct words *t, struct rand_event *e)
{
	static const char *const ops[] = { "kill", "nice", "sched", "ioprio", "prlimit", "sigio" };
	struct pair_row *r = &e->r;
	unsigned long long v;
	int o;

	e->kind = EV_PAIR;
	if (take(t, "thread")) {
		r->thread = 1;
		if (file_word(t, 1, &r->target) || uid_word(t, &r->tuid))
			return -1;
		if (!take(t, "sig") || number(t, 10, 64, &v))
			return bad(t, "'sig S' wanted");
		r->sig = v;
		r->thread_drop = take(t, "drop");
		if (!r->thread_drop && !take(t, "keep"))
			return bad(t, "'drop' or 'keep' wanted");
		r->sw.kill_off = take(t, "kill=0");
		return 0;
	}
	o = one_of(t, ops, ARRAY_SIZE(ops), "not an event's first word");
	if (o < 0)
		return -1;
	r->op = o ? ops[o] : NULL;
	if (file_word(t, 0, &r->sender) || uid_word(t, &r->suid))
		return -1;
	if (take(t, "chain")) {
		e->chain[0] = r->sender;
		if (chain_words(t, e, 1, 0, end_of_sender))
			return -1;
		r->sender_chain = e->chain;
	} else if (!fixture(r->sender)) {
		return bad(t, "a sender without 'chain' is a fixture (catalogue.h)");
	}
	if (take(t, "euid")) {
		if (number(t, 10, 65535, &v))
			return -1;
		r->seteuid = 1;
		r->seuid = v;
	}
	r->sender_userns = take(t, "userns");
	r->session = take(t, "setsid");
	r->pp_only = take(t, "pE=0");
	if (!take(t, "->"))
		return bad(t, "'-> FILE uid U' wanted");
	if (file_word(t, 1, &r->target) || uid_word(t, &r->tuid))
		return -1;
	r->target_userns = take(t, "userns");
	if (take(t, "nested") && !(r->target_nested = take(t, "userns")))
		return bad(t, "'nested userns' wanted");
	if (!strncmp(peek(t), "group+", 6)) {
		t->w[t->i] += 6;
		if (file_word(t, 1, &r->member) || uid_word(t, &r->muid))
			return -1;
		r->group = 1;
	}
	if (!r->op) {
		if (!take(t, "sig") || number(t, 10, 64, &v))
			return bad(t, "'sig S' wanted");
		r->sig = v;
	}
	r->sw.kill_off = take(t, "kill=0");
	return 0;
}

static int parse_xattr(struct words *t, struct rand_event *e)
{
	static const char *const ops[] = { "set", "empty", "remove", "set-other", "remove-other" };
	struct xattr_spec *x = &e->x;
	char who[128] = "";
	size_t a;
	int o;

	e->kind = EV_XATTR;
	o = one_of(t, ops, ARRAY_SIZE(ops),
		   "an xattr op wanted (set, empty, remove, set-other, remove-other)");
	if (o < 0)
		return -1;
	x->op = ops[o];
	if (!o) {
		if (!fcaps_test_value(peek(t)))
			return bad(t, "a test value's name wanted (fcaps_values.h)");
		x->value = t->w[t->i++];
	}
	if (!take(t, "by"))
		return bad(t, "'by' wanted");
	while (t->i < t->n && strcmp(peek(t), "on")) {
		if (strlen(who) + strlen(peek(t)) + 2 > sizeof(who))
			return bad(t, "not an actor");
		strcat(strcat(who, *who ? " " : ""), t->w[t->i++]);
	}
	for (a = 0; a < n_xattr_actors && strcmp(who, xattr_actors[a].who); a++)
		;
	if (a == n_xattr_actors)
		return bad(t, "an actor of xattr_actors (event_spec.c) wanted before it");
	e->actor = xattr_actors[a].who;
	x->c.uid = xattr_actors[a].uid;
	x->c.pa = xattr_actors[a].pa;
	x->chain = xattr_actors[a].chain;
	if (!take(t, "on") || !take(t, "a") || !take(t, "file") || !take(t, "of"))
		return bad(t, "'on a file of uid U holding VALUE' wanted");
	if (uid_word(t, &x->owner) || !take(t, "holding"))
		return bad(t, "'holding VALUE' wanted");
	if (!take(t, "nothing")) {
		if (!fcaps_test_value(peek(t)))
			return bad(t, "a test value's name or 'nothing' wanted");
		x->before = t->w[t->i++];
	}
	return 0;
}

static int parse_caps(struct words *t, struct rand_event *e)
{
	static const char *const ops[] = { "inherit", "ambient", "securebits", "traceme", "ptrace" };
	struct caps_spec *k = &e->k;
	unsigned long long v;
	int o;
	char *colon;

	e->kind = EV_CAPS;
	o = one_of(t, ops, ARRAY_SIZE(ops),
		   "a caps op wanted (inherit, ambient, securebits, traceme, ptrace)");
	if (o < 0)
		return -1;
	k->op = ops[o];
	if (o >= 3) {
		if (file_word(t, 1, &k->file))
			return -1;
	} else {
		if (number(t, 0, ~0UL, &v))
			return -1;
		k->arg = v;
	}
	if (!take(t, "by") || !take(t, "uid"))
		return bad(t, "'by uid U' wanted");
	colon = strchr(peek(t), ':');
	if (colon && !colon[1])
		*colon = 0;
	if (number(t, 10, 65535, &v))
		return -1;
	k->c.uid = e->c.uid = v;
	if (colon) {
		if (chain_words(t, e, 0, 0, end_of_words))
			return -1;
		k->chain = e->chain;
	}
	return 0;
}

int event_spec_parse(const char *name, struct rand_event *e, char *why, size_t len)
{
	struct words t = { .why = why, .len = len };
	const char *text = strstr(name, ": ");
	char label[64];
	int ret;

	memset(e, 0, sizeof(*e));
	if (!text || text - name >= (long)sizeof(label) || strncmp(name, "reduced", 7) ||
	    (text != name + 7 && (name[7] != '#' || text == name + 8 ||
				   strspn(name + 8, "0123456789") != (size_t)(text - name - 8)))) {
		snprintf(why, len, "a reduced event's name is 'reduced: TEXT' or 'reduced#K: TEXT'");
		return -1;
	}
	snprintf(label, sizeof(label), "%.*s", (int)(text - name), name);
	snprintf(e->words, sizeof(e->words), "%s", text + 2);
	for (char *w = strtok(e->words, " "); w; w = strtok(NULL, " "))
		if (t.n < (int)(sizeof(t.w) / sizeof(t.w[0])))
			t.w[t.n++] = w;
	e->focus = "reduced";
	if (take(&t, "caps"))
		ret = parse_caps(&t, e);
	else if (take(&t, "xattr"))
		ret = parse_xattr(&t, e);
	else if (take(&t, "exec"))
		ret = parse_exec(&t, e, 0);
	else if (take(&t, "chain"))
		ret = parse_exec(&t, e, 1);
	else
		ret = parse_pair(&t, e);
	if (!ret && t.i < t.n)
		ret = bad(&t, "a word too many");
	if (ret)
		return -1;
	event_spec_name(e, label);
	if (strcmp(e->name, name)) {
		snprintf(why, len, "not as the workload writes it: '%s'", e->name);
		return -1;
	}
	return 0;
}
