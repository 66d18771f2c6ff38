/* test-unitfile.c -- reading ExecStart= like systemd, and wrapping it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strmap.h"
#include "unit.h"
#include "execstart.h"
#include "launcher-args.h"
#include "unitfile.h"
#include "unitmap.h"
#include "util.h"

#define L "/usr/sbin/mtag-launcher"

static int wraps_to(const char *value, const char *want)
{
	char *got = unit_wrap_exec(value, L, "--unit=%n");
	int ok = got && want ? strcmp(got, want) == 0 : got == want;

	if (!ok)
		printf("# wrap(%s) = %s, want %s\n", value, got ? got : "NULL", want ? want : "NULL");
	free(got);
	return ok;
}

static void test_wrap(void)
{
	CHECK(wraps_to("/usr/sbin/nginx -g 'daemon on; master_process on;'",
		       L " --unit=%n -- /usr/sbin/nginx -g 'daemon on; master_process on;'"));
	CHECK(wraps_to("-/usr/bin/memcached", "-" L " --unit=%n -- /usr/bin/memcached"));
	CHECK(wraps_to("+!!/bin/x $FOO ${BAR}", "+!!" L " --unit=%n -- /bin/x $FOO ${BAR}"));
	CHECK(wraps_to(":/bin/x %i", ":" L " --unit=%n -- /bin/x %i"));
	CHECK(wraps_to("@/usr/sbin/sshd sshd -D", L " --unit=%n --argv0 sshd -- /usr/sbin/sshd -D"));
	CHECK(wraps_to("-@/bin/sh \"my shell\" -c 'echo hi'",
		       "-" L " --unit=%n --argv0 \"my shell\" -- /bin/sh -c 'echo hi'"));
	CHECK(wraps_to("\"/opt/my app/bin\" a\\ b", L " --unit=%n -- \"/opt/my app/bin\" a\\ b"));
	CHECK(wraps_to("nginx", L " --unit=%n -- nginx"));
	CHECK(wraps_to("/bin/x 'unbalanced", NULL));
	CHECK(wraps_to("@/bin/x", NULL));
	CHECK(wraps_to("-", NULL));
	CHECK(unit_exec_runs("-" L " --mode sync -- /bin/true", L));
	CHECK(unit_exec_runs("mtag-launcher -- /bin/true", L));
	CHECK(!unit_exec_runs("/usr/sbin/nginx", L));
}

static char dir_a[512], dir_b[512];

static void setup_dirs(const char *name)
{
	char cmd[1200];

	snprintf(dir_a, sizeof(dir_a), "%s/%s/etc", tmpdir(), name);
	snprintf(dir_b, sizeof(dir_b), "%s/%s/lib", tmpdir(), name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", tmpdir(), name);
	if (system(cmd) != 0)
		abort();
	mkdirs(dir_a);
	mkdirs(dir_b);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	write_file(path, text);
}

static void paths(struct strv *dirs)
{
	char env[1100];

	snprintf(env, sizeof(env), "%s:%s", dir_a, dir_b);
	setenv("SYSTEMD_UNIT_PATH", env, 1);
	unit_paths(dirs, NULL);
	unsetenv("SYSTEMD_UNIT_PATH");
}


/* The effective ExecStart= of NAME in the map of DIRS, as the generator
 * reads it (without drop-ins named SKIP). */
static int exec_start(const struct strv *dirs, const char *name, const char *skip,
		      struct strv *out, struct unit_values *keep)
{
	struct unitmap m;
	struct strmap cache = { 0 };
	struct unit_load u;
	struct unit_values v;
	char *err = NULL;
	int r = -1;

	memset(out, 0, sizeof(*out));
	unitmap_build(&m, dirs);
	if (unitmap_load(&m, name, &u) == UNIT_FOUND) {
		r = unit_read_values(&m, &cache, &u, skip, &v, &err);
		if (r == 0) {
			*out = v.exec_start;
			memset(&v.exec_start, 0, sizeof(v.exec_start));
			if (keep)
				*keep = v;
			else
				unit_values_free(&v);
		}
	}
	free(err);
	unit_load_free(&u);
	unit_values_cache_free(&cache);
	unitmap_free(&m);
	return r;
}

static enum unit_state find(const struct strv *dirs, const char *name, char **path, char **real)
{
	struct unitmap m;
	struct unit_load u;
	enum unit_state s;

	unitmap_build(&m, dirs);
	s = unitmap_load(&m, name, &u);
	*path = u.fragment ? xstrdup(u.fragment) : NULL;
	*real = u.id ? xstrdup(u.id) : NULL;
	unit_load_free(&u);
	unitmap_free(&m);
	return s;
}

static void test_unit_paths(void)
{
	struct strv d;

	setenv("SYSTEMD_UNIT_PATH", "/x:/y:", 1);
	unit_paths(&d, NULL);
	unsetenv("SYSTEMD_UNIT_PATH");
	CHECK(d.n > 4);
	CHECK_STR(d.v[0], "/x");
	CHECK_STR(d.v[1], "/y");
	CHECK_STR(d.v[2], "/etc/systemd/system.control");
	strv_free(&d);
	unit_paths(&d, "/r");
	CHECK(d.n > 3);
	CHECK_STR(d.v[3], "/r/etc/systemd/system");
	strv_free(&d);
}

static void test_exec_start_with_dropins(void)
{
	struct strv dirs, ex;

	setup_dirs("exec");
	put(dir_b, "web.service",
	    "[Unit]\nDescription=ExecStart=/not/this\n[Service]\nType=oneshot\n"
	    "ExecStart=/bin/first \\\n"
	    "# a comment inside a continuation\n"
	    "   --flag\n"
	    "  ExecStart = /bin/second  \n"
	    "[Install]\nExecStart=/not/this/either\n");
	put(dir_b, "web.service.d/10-more.conf", "[Service]\nExecStart=/bin/third\n");
	put(dir_a, "web.service.d/20-reset.conf", "[Service]\nExecStart=\nExecStart=/bin/fourth\n");
	put(dir_b, "web.service.d/20-reset.conf", "[Service]\nExecStart=/bin/masked-by-etc\n");
	put(dir_b, "service.d/30-all.conf", "[Service]\nExecStart=/bin/fifth\n");
	put(dir_b, "web-.service.d/15-prefix.conf", "[Service]\nExecStart=/bin/not-a-prefix-of-web\n");
	put(dir_b, "web.service.d/zz-mtag-launcher.conf", "[Service]\nExecStart=\nExecStart=/ours\n");
	paths(&dirs);
	CHECK(exec_start(&dirs, "web.service", "zz-mtag-launcher.conf", &ex, NULL) == 0);
	CHECK(ex.n == 2);
	CHECK_STR(ex.v[0], "/bin/fourth");
	CHECK_STR(ex.v[1], "/bin/fifth");
	strv_free(&ex);
	/* Without any reset: fragment (continuation joined), then drop-ins. */
	put(dir_a, "web.service.d/20-reset.conf", "[Service]\nExecStart=/bin/fourth\n");
	CHECK(exec_start(&dirs, "web.service", "zz-mtag-launcher.conf", &ex, NULL) == 0);
	CHECK(ex.n == 5);
	CHECK_STR(ex.v[0], "/bin/first     --flag");
	CHECK_STR(ex.v[1], "/bin/second");
	CHECK_STR(ex.v[2], "/bin/third");
	strv_free(&ex);
	strv_free(&dirs);
}

static void test_hierarchical_dropins(void)
{
	struct strv dirs, ex;

	setup_dirs("hier");
	put(dir_b, "foo-bar-baz.service", "[Service]\nExecStart=/bin/a\n");
	put(dir_b, "foo-.service.d/x.conf", "[Service]\nExecStart=\nExecStart=/bin/b\n");
	put(dir_b, "foo-bar-.service.d/y.conf", "[Service]\nExecStart=/bin/c\n");
	paths(&dirs);
	CHECK(exec_start(&dirs, "foo-bar-baz.service", NULL, &ex, NULL) == 0);
	CHECK(ex.n == 2);
	CHECK_STR(ex.v[0], "/bin/b");
	CHECK_STR(ex.v[1], "/bin/c");
	strv_free(&ex);
	strv_free(&dirs);
}

static void test_find_alias_template_masked(void)
{
	struct strv dirs, names;
	char *path = NULL, *real = NULL, link[1024];

	setup_dirs("find");
	put(dir_b, "ssh.service", "[Service]\nExecStart=/usr/sbin/sshd -D\n");
	put(dir_b, "getty@.service", "[Service]\nExecStart=/sbin/agetty %I\n");
	put(dir_b, "gone.service", "[Service]\nExecStart=/bin/gone\n");
	put(dir_b, "empty.service", "");
	snprintf(link, sizeof(link), "%s/sshd.service", dir_a);
	CHECK(symlink("../lib/ssh.service", link) == 0);
	snprintf(link, sizeof(link), "%s/gone.service", dir_a);
	CHECK(symlink("/dev/null", link) == 0);
	paths(&dirs);

	CHECK(find(&dirs, "sshd.service", &path, &real) == UNIT_FOUND);
	CHECK_STR(real, "ssh.service");
	free(path);
	free(real);
	CHECK(find(&dirs, "getty@tty1.service", &path, &real) == UNIT_FOUND);
	CHECK_STR(real, "getty@tty1.service");
	CHECK(strstr(path, "getty@.service") != NULL);
	free(path);
	free(real);
	CHECK(find(&dirs, "gone.service", &path, &real) == UNIT_MASKED);
	free(path);
	free(real);
	CHECK(find(&dirs, "empty.service", &path, &real) == UNIT_MASKED);
	free(path);
	free(real);
	CHECK(find(&dirs, "nope.service", &path, &real) == UNIT_NOT_FOUND);

	{
		struct unitmap m;

		unitmap_build(&m, &dirs);
		unitmap_list(&m, ".service", &names);
		unitmap_free(&m);
	}
	CHECK(names.n == 5);
	CHECK_STR(names.v[0], "empty.service");
	CHECK_STR(names.v[1], "getty@.service");
	strv_free(&names);
	strv_free(&dirs);
}

/* The ExecStart= values of TEXT as systemd's config_parse reads them,
 * joined by '|'. */
static int parses_to(const char *text, size_t len, const char *want)
{
	static const char *const keys[] = { "ExecStart" };
	struct unit_file_keys k;
	struct strv l = { 0 };
	char *err = NULL, got[1024] = "";
	int ok;

	(void)unit_text_parse("t.service", text, len, keys, 1, &k, &err);
	unit_file_keys_apply(&k, 0, &l, NULL);
	for (size_t i = 0; i < l.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "|" : "", l.v[i]);
	ok = strcmp(got, want) == 0;
	if (!ok)
		printf("# parse(%s) = '%s', want '%s' (%s)\n", text, got, want, err ? err : "");
	free(err);
	strv_free(&l);
	unit_file_keys_free(&k);
	return ok;
}
#define PARSES_TO(text, want) parses_to(text, sizeof(text) - 1, want)

static void test_config_parse_lines(void)
{
	/* An escaped backslash at the end is no continuation (issue 18.7). */
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/echo x\\\\\nExecStartPost=/bin/true\nExecStart=/b\n",
			"/bin/echo x\\\\|/b"));
	/* Nor is a backslash followed by blanks. */
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/echo x\\ \nExecStart=/b\n", "/bin/echo x\\|/b"));
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/echo x\\\t\nExecStart=/b\n", "/bin/echo x\\|/b"));
	/* A real one: the backslash becomes a space; three backslashes end
	 * in an unescaped one. */
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/a\\\n  b\n", "/bin/a   b"));
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/a x\\\\\\\nb\n", "/bin/a x\\\\ b"));
	/* Comment lines inside a continuation are dropped; a blank line ends it. */
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/a \\\n# c\n ; d\n  -x\n", "/bin/a    -x"));
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/a \\\n\nExecStart=/b\n", "/bin/a|/b"));
	/* A '#' that is not the first non-blank is part of the line. */
	CHECK(PARSES_TO("[Service]\nExecStart=/bin/a \\\nx # y\n", "/bin/a  x # y"));
	/* \r\n and \r end lines; a continuation across \r\n. */
	CHECK(PARSES_TO("[Service]\r\nExecStart=/bin/a\\\r\nb\r\nExecStart=/c\r", "/bin/a b|/c"));
	/* A NUL ends a line. */
	CHECK(PARSES_TO("[Service]\nExecStart=/a\0ExecStart=/b\n", "/a|/b"));
	/* A byte order mark; a file ending inside a continuation. */
	CHECK(PARSES_TO("\xef\xbb\xbf[Service]\nExecStart=/a \\", "/a"));
	/* Sections: only [Service]; " Service " is another; an assignment
	 * without a section or a key is ignored; an empty one resets. */
	CHECK(PARSES_TO("ExecStart=/x\n[Service]\n=/y\nExecStart=/a\n[ Service ]\nExecStart=/z\n"
			"[Service]\nExecStart=\nExecStart = /b \n", "/b"));
	/* An invalid section header ends the file (systemd stops there). */
	CHECK(PARSES_TO("[Service]\nExecStart=/a\n[Service\nExecStart=/b\n", "/a"));
	{
		/* A joined line over systemd's 1 MiB is an error; the scan
		 * stays linear (40,000 continued lines). */
		static const char *const keys[] = { "ExecStart" };
		size_t n = 40000, len = 10 + n * 32;
		char *big = malloc(len + 1), *q = big, *err = NULL;
		struct unit_file_keys k;

		q += sprintf(q, "[Service]\n");
		for (size_t i = 0; i < n; i++)
			q += sprintf(q, "ExecStart=/aaaaaaaaaaaaaaaaaa \\\n");
		CHECK(unit_text_parse("big.service", big, (size_t)(q - big), keys, 1, &k, &err) < 0);
		CHECK(err && strstr(err, "continuation line too long"));
		free(err);
		unit_file_keys_free(&k);
		free(big);
	}
}

static void test_exec_split(void)
{
	struct strv c;

	unit_exec_split("/bin/a x ; /bin/b 'y ; z' \\; ;", &c);
	CHECK(c.n == 2);
	if (c.n == 2) {
		CHECK_STR(c.v[0], "/bin/a x");
		CHECK_STR(c.v[1], "/bin/b 'y ; z' \\;");
	}
	strv_free(&c);
	unit_exec_split("; /bin/a;b", &c);
	CHECK(c.n == 1 && strcmp(c.v[0], "/bin/a;b") == 0);
	strv_free(&c);
}

static void test_name_map(void)
{
	struct strv dirs;
	struct unitmap m;
	struct unit_load u;
	struct dropins d;
	char link[1024];

	setup_dirs("map");
	/* /etc wins over /lib, also for an alias; an invalid alias (plain to
	 * template) is ignored, so the lower-priority file counts. */
	put(dir_b, "a.service", "[Service]\nExecStart=/lib/a\n");
	put(dir_a, "a.service", "[Service]\nExecStart=/etc/a\n");
	put(dir_b, "real.service", "[Service]\nExecStart=/r\n");
	put(dir_b, "tpl@.service", "[Service]\nExecStart=/t %i\n");
	put(dir_b, "bad.service", "[Service]\nExecStart=/bad\n");
	snprintf(link, sizeof(link), "%s/al.service", dir_a);
	CHECK(symlink("../lib/real.service", link) == 0);
	snprintf(link, sizeof(link), "%s/bad.service", dir_a);
	CHECK(symlink("../lib/tpl@.service", link) == 0);
	snprintf(link, sizeof(link), "%s/other@.service", dir_a);
	CHECK(symlink("../lib/tpl@.service", link) == 0);
	/* A linked unit file: a link out of the search path. */
	put(tmpdir(), "map/outside/linked.service", "[Service]\nExecStart=/linked\n");
	snprintf(link, sizeof(link), "%s/linked.service", dir_b);
	CHECK(symlink("../outside/linked.service", link) == 0);
	/* Drop-ins: the alias's apply to the unit loaded by its own name;
	 * an instance reads its template's and its prefix's (not the
	 * instance's dashes); service.d last. */
	put(dir_b, "al.service.d/50-alias.conf", "[Service]\nExecStart=/from-alias\n");
	put(dir_b, "my-app@.service", "[Service]\nExecStart=/app\n");
	put(dir_b, "my-app@x-y.service.d/10.conf", "");
	put(dir_b, "my-app@.service.d/20.conf", "");
	put(dir_b, "my-.service.d/30.conf", "");
	put(dir_b, "my-app@x-.service.d/40.conf", "");
	put(dir_a, "service.d/20.conf", "");
	paths(&dirs);
	unitmap_build(&m, &dirs);

	CHECK(unitmap_load(&m, "a.service", &u) == UNIT_FOUND);
	CHECK(u.fragment && strncmp(u.fragment, dir_a, strlen(dir_a)) == 0);
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "real.service", &u) == UNIT_FOUND);
	CHECK_STR(u.id, "real.service");
	CHECK(u.aliases.n == 1 && strcmp(u.aliases.v[0], "al.service") == 0);
	unitmap_dropins(&m, &u, NULL, &d);
	CHECK(d.n == 2 && strcmp(d.v[1].name, "50-alias.conf") == 0); /* and service.d/20.conf */
	dropins_free(&d);
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "al.service", &u) == UNIT_FOUND);
	CHECK_STR(u.id, "real.service");
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "bad.service", &u) == UNIT_FOUND);
	CHECK_STR(u.id, "bad.service");
	CHECK(u.fragment && strncmp(u.fragment, dir_b, strlen(dir_b)) == 0);
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "other@7.service", &u) == UNIT_FOUND);
	CHECK_STR(u.id, "tpl@7.service");
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "linked.service", &u) == UNIT_FOUND);
	CHECK_STR(u.id, "linked.service");
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "my-app@x-y.service", &u) == UNIT_FOUND);
	CHECK_STR(u.id, "my-app@x-y.service");
	unitmap_dropins(&m, &u, NULL, &d);
	CHECK(d.n == 3);
	if (d.n == 3) {
		CHECK_STR(d.v[0].name, "10.conf");
		/* my-app@.service.d/20.conf masks service.d/20.conf, though
		 * /etc ranks higher: the unit's own directories come first. */
		CHECK(strstr(d.v[1].path, "my-app@.service.d/20.conf") != NULL);
		CHECK_STR(d.v[2].name, "30.conf");
	}
	dropins_free(&d);
	unit_load_free(&u);
	CHECK(unitmap_load(&m, "nope@1.service", &u) == UNIT_NOT_FOUND);
	CHECK(unitmap_load(&m, "not a unit", &u) == UNIT_NOT_FOUND);
	unitmap_free(&m);
	strv_free(&dirs);
}

static void test_late_dropin(void)
{
	struct strv dirs, ex;
	struct unit_values v;

	setup_dirs("late");
	put(dir_b, "web.service", "[Service]\nExecStart=/bin/web\n");
	put(dir_a, "web.service.d/zzz-local.conf", "[Service]\nExecStart=\nExecStart=/bin/local\n");
	put(dir_a, "web.service.d/zzzz-more.conf", "[Service]\nExecStart=/bin/more\n");
	put(dir_a, "web.service.d/10-early.conf", "[Service]\nExecStart=\nExecStart=/bin/early\n");
	paths(&dirs);
	CHECK(exec_start(&dirs, "web.service", "zz-mtag-launcher.conf", &ex, &v) == 0);
	CHECK(v.late_reset.n == 1 && strstr(v.late_reset.v[0], "/web.service.d/zzz-local.conf"));
	CHECK(v.late_add.n == 1 && strstr(v.late_add.v[0], "/web.service.d/zzzz-more.conf"));
	unit_values_free(&v);
	strv_free(&ex);
	strv_free(&dirs);
}

static void test_unreadable_fragment(void)
{
	struct unitmap m;
	struct strv dirs = { 0 };
	struct strmap cache = { 0 };
	struct unit_load u = { .fragment = xstrdup("/nonexistent/x.service"), .id = xstrdup("x.service") };
	struct unit_values v;
	char *err = NULL;

	unitmap_build(&m, &dirs);
	/* A fragment that cannot be read is an error. */
	CHECK(unit_read_values(&m, &cache, &u, NULL, &v, &err) < 0);
	CHECK(err && strstr(err, "No such file"));
	free(err);
	unit_load_free(&u);
	unit_values_cache_free(&cache);
	unitmap_free(&m);
}

/* What the generator writes, read back as the launcher sees it: the
 * words systemd hands the program, and the launcher's own parser on them
 * (mtagctl's reader of the drop-in). */
static void test_exec_words(void)
{
	struct launcher_opts o;
	struct strv w;
	char *line, *entry = unit_exec_word("sync require=yes upgrade=10min"), *argv[16];

	CHECK(unit_exec_words("-@/bin/x a\\ b \"c d\" 'e;f' 100%% $$HOME %n %i", "web.service", &w));
	CHECK(w.n == 8);
	if (w.n == 8) {
		CHECK_STR(w.v[0], "/bin/x");
		CHECK_STR(w.v[1], "a b");
		CHECK_STR(w.v[2], "c d");
		CHECK_STR(w.v[3], "e;f");
		CHECK_STR(w.v[4], "100%");
		CHECK_STR(w.v[5], "$HOME");
		CHECK_STR(w.v[6], "web.service");
		CHECK_STR(w.v[7], "%i");
	}
	strv_free(&w);
	CHECK(!unit_exec_words("/bin/x 'open", "web.service", &w));
	strv_free(&w);

	line = unit_wrap_exec("/usr/sbin/nginx -g 'daemon on;'", L, "--unit=%n --policy-entry=PE --policy-source=\"/etc/mtag/policy.conf:3\"");
	CHECK(line != NULL);
	if (line) {
		/* The entry as the generator quotes it. */
		char *full = xasprintf("%.*s%s%s", (int)(strstr(line, "PE") - line), line, entry,
				       strstr(line, "PE") + 2);

		CHECK(unit_exec_words(full, "web.service", &w));
		CHECK(w.n > 0 && w.n < 16);
		if (w.n > 0 && w.n < 16) {
			memcpy(argv, w.v, w.n * sizeof(*argv));
			argv[w.n] = NULL;
			CHECK(launcher_args_parse((int)w.n, argv, &o, true) > 0);
			CHECK_STR(o.unit, "web.service");
			CHECK(o.policy_entry && strcmp(o.policy_entry, "sync require=yes upgrade=10min") == 0);
			CHECK(o.policy_source && strcmp(o.policy_source, "/etc/mtag/policy.conf:3") == 0);
		}
		strv_free(&w);
		free(full);
	}
	free(line);
	free(entry);
	/* Quiet: a bad option is refused without a word. */
	{
		char *bad[] = { (char *)L, (char *)"--mode", (char *)"bogus", (char *)"--", (char *)"/bin/x", NULL };

		CHECK(launcher_args_parse(5, bad, &o, true) == -1);
	}
}

void run_unitfile_tests(void)
{
	RUN(test_wrap);
	RUN(test_unit_paths);
	RUN(test_exec_start_with_dropins);
	RUN(test_hierarchical_dropins);
	RUN(test_find_alias_template_masked);
	RUN(test_unreadable_fragment);
	RUN(test_config_parse_lines);
	RUN(test_exec_split);
	RUN(test_exec_words);
	RUN(test_name_map);
	RUN(test_late_dropin);
}
