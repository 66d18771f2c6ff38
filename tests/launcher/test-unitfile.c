/* test-unitfile.c -- reading ExecStart= like systemd, and wrapping it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strmap.h"
#include "unit.h"
#include "unitfile.h"
#include "unitmap.h"
#include "util.h"

#define L "/usr/sbin/mtag-launcher"

static int wraps_to(const char *value, const char *want)
{
	char *got = unit_wrap_exec(value, L, "%n");
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

void run_unitfile_tests(void)
{
	RUN(test_wrap);
	RUN(test_unit_paths);
	RUN(test_exec_start_with_dropins);
	RUN(test_hierarchical_dropins);
	RUN(test_find_alias_template_masked);
	RUN(test_unreadable_fragment);
}
