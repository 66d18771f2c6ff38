/* test-conffiles.c -- file set, drop-in order, masking, safety checks. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conffiles.h"
#include "unit.h"

static char root[512];
static struct policy P;

static void new_root(const char *name)
{
	char cmd[600];

	snprintf(root, sizeof(root), "%s/%s", tmpdir(), name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		abort();
	mkdirs(root);
}

static void put(const char *rel, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	write_file(path, text);
}

static unsigned load(const char *single)
{
	struct conf_opts o = { .root = root, .single = single };

	policy_free(&P);
	policy_init(&P);
	return conf_load(&P, &o);
}

static const char *mode_of(const char *unit)
{
	const struct policy_entry *e = policy_lookup(&P, unit);

	return e ? mode_name(e->mode) : "none";
}

static int has_diag(const char *substr)
{
	for (size_t i = 0; i < P.n_diags; i++)
		if (strstr(P.diags[i].msg, substr) || strstr(P.diags[i].file, substr))
			return 1;
	return 0;
}

static uint64_t stamp(void)
{
	struct conf_opts o = { .root = root };

	return conf_stamp(&o);
}

/* The fingerprint mtag-faultd keeps its parsed policy by: the same while
 * nothing changes, another after any change conf_load() would see. */
static void test_stamp(void)
{
	char path[1024], link[1024];
	uint64_t s0, s;
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 1700000000, 0 } };

	new_root("stamp");
	put("/etc/mtag/policy.conf", "a.service sync\n");
	put("/usr/lib/mtag/policy.d/10-vendor.conf", "b.service async\n");
	s0 = stamp();
	CHECK(stamp() == s0);
	/* Rewritten in place, same size: the times tell. */
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.conf", root);
	write_file(path, "a.service off\n ");
	CHECK((s = stamp()) != s0);
	s0 = s;
	/* Only the modification time set back (ctime moves too). */
	CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
	CHECK((s = stamp()) != s0);
	s0 = s;
	/* A drop-in added, masked, removed. */
	put("/etc/mtag/policy.d/20-new.conf", "c.service sync\n");
	CHECK((s = stamp()) != s0);
	s0 = s;
	snprintf(link, sizeof(link), "%s/etc/mtag/policy.d/10-vendor.conf", root);
	CHECK(symlink("/dev/null", link) == 0);
	CHECK((s = stamp()) != s0);
	s0 = s;
	CHECK(unlink(link) == 0);
	CHECK((s = stamp()) != s0);
	s0 = s;
	/* Made unsafe: conf_load() would refuse it. */
	snprintf(path, sizeof(path), "%s/usr/lib/mtag/policy.d/10-vendor.conf", root);
	CHECK(chmod(path, 0666) == 0);
	CHECK((s = stamp()) != s0);
	s0 = s;
	CHECK(stamp() == s0);
	{
		struct conf_opts o = { .single = path };
		uint64_t a = conf_stamp(&o);

		CHECK(conf_stamp(&o) == a);
		CHECK(chmod(path, 0644) == 0);
		CHECK(conf_stamp(&o) != a);
	}
}

static void test_dropin_order_and_masking(void)
{
	char link[1024];

	if (geteuid() != 0)
		SKIP_TEST("needs root: policy files must be root-owned");
	new_root("order");
	put("/etc/mtag/policy.conf", "a*.service sync\nx.service off\n");
	put("/usr/lib/mtag/policy.d/10-vendor.conf", "x.service async\nab*.service asymm\n");
	put("/usr/lib/mtag/policy.d/20-masked.conf", "y.service sync\n");
	put("/usr/lib/mtag/policy.d/30-empty.conf", "z.service sync\n");
	put("/usr/lib/mtag/policy.d/40-replaced.conf", "w.service sync\n");
	put("/run/mtag/policy.d/40-replaced.conf", "w.service async\n");
	put("/etc/mtag/policy.d/40-replaced.conf", "w.service off\n");
	put("/etc/mtag/policy.d/30-empty.conf", "");
	put("/etc/mtag/policy.d/05-early.conf", "v.service asymm\n");
	put("/etc/mtag/policy.d/README", "not read\n");
	snprintf(link, sizeof(link), "%s/etc/mtag/policy.d/20-masked.conf", root);
	CHECK(symlink("/dev/null", link) == 0);

	/* main, 05-early, 10-vendor, 30-empty (/etc), 40-replaced (/etc) */
	CHECK(load(NULL) == 5);
	CHECK(P.n_diags == 0); /* /etc over a vendor default: no warning */
	CHECK_STR(mode_of("x.service"), "off");     /* /etc beats the vendor's */
	CHECK_STR(mode_of("abc.service"), "sync");  /* first glob (main file) */
	CHECK_STR(mode_of("y.service"), "none");    /* masked by /dev/null */
	CHECK_STR(mode_of("z.service"), "none");    /* masked by empty file */
	CHECK_STR(mode_of("w.service"), "off");     /* /etc beats /run, /usr/lib */
	CHECK_STR(mode_of("v.service"), "asymm");
	CHECK_STR(policy_lookup(&P, "x.service")->file + strlen(root), "/etc/mtag/policy.conf");
}

/* Vendor defaults (/usr/lib/mtag/policy.d) never override the admin's
 * entries, whichever file is read first; a glob of the admin's still
 * loses to a vendor default's exact name (that is what the defaults are
 * for), and one source overriding itself is warned about. */
static void test_vendor_defaults_rank_below_etc(void)
{
	const struct policy_entry *e;

	if (geteuid() != 0)
		SKIP_TEST("needs root: policy files must be root-owned");
	new_root("rank");
	put("/etc/mtag/policy.conf", "*.service sync\n");
	put("/usr/lib/mtag/policy.d/10-compat.conf",
	    "broken.service off\nfixed.service off\ncpu-preferred async\n");
	put("/usr/local/lib/mtag/policy.d/20-site.conf", "fixed.service async\n");
	put("/etc/mtag/policy.d/50-admin.conf", "fixed.service sync\ncpu-preferred sync\n");
	put("/usr/lib/mtag/policy.d/60-later.conf", "fixed.service off\nb2.service off\nb2.service async\n");
	CHECK(load(NULL) == 5);
	CHECK_STR(mode_of("broken.service"), "off");   /* exact vendor name beats the glob */
	CHECK_STR(mode_of("other.service"), "sync");
	e = policy_lookup(&P, "fixed.service");
	CHECK(e && e->mode == MTAG_MODE_SYNC && e->rank == POLICY_RANK_ETC);
	CHECK_STR(e->file + strlen(root), "/etc/mtag/policy.d/50-admin.conf");
	CHECK(P.has_cpu_preferred && P.cpu_preferred == MTAG_MODE_SYNC);
	e = policy_lookup(&P, "broken.service");
	CHECK(e && e->rank == POLICY_RANK_VENDOR);
	CHECK_STR(mode_of("b2.service"), "async");     /* same source: later wins */
	CHECK(P.n_diags == 1 && has_diag("overrides the entry for 'b2.service'"));
}

static void test_missing_files_are_fine(void)
{
	new_root("empty");
	CHECK(load(NULL) == 0);
	CHECK(P.n_diags == 0 && P.n_entries == 0);
}

static void test_single_file(void)
{
	char path[1024];

	if (geteuid() != 0)
		SKIP_TEST("needs root");
	new_root("single");
	put("/etc/mtag/policy.conf", "a.service sync\n");
	put("/try.conf", "a.service async\n");
	snprintf(path, sizeof(path), "%s/try.conf", root);
	CHECK(load(path) == 1);
	CHECK_STR(mode_of("a.service"), "async");
	snprintf(path, sizeof(path), "%s/nonexistent.conf", root);
	CHECK(load(path) == 0);
	CHECK(policy_error_count(&P) == 1 && has_diag("cannot open: No such file or directory"));
}

static void test_unsafe_files_refused(void)
{
	char path[1024];

	if (geteuid() != 0)
		SKIP_TEST("needs root to chown");
	new_root("unsafe");
	put("/etc/mtag/policy.conf", "a.service sync\n");
	put("/etc/mtag/policy.d/50-user.conf", "b.service sync\n");
	put("/usr/lib/mtag/policy.d/60-ww.conf", "c.service sync\n");
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.d/50-user.conf", root);
	CHECK(chown(path, 65534, 65534) == 0);
	snprintf(path, sizeof(path), "%s/usr/lib/mtag/policy.d/60-ww.conf", root);
	CHECK(chmod(path, 0666) == 0);
	load(NULL);
	CHECK(policy_error_count(&P) == 2);
	CHECK(has_diag("refused: not owned by root (policy must not be writable by a service user): owner uid 65534, mode 0644"));
	CHECK(has_diag("refused: writable by group or others (policy must not be writable by a service user): owner uid 0, mode 0666"));
	CHECK_STR(mode_of("a.service"), "sync");
	CHECK_STR(mode_of("b.service"), "none");
	CHECK_STR(mode_of("c.service"), "none");
	/* --config as root: the same rules. */
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.d/50-user.conf", root);
	load(path);
	CHECK(policy_error_count(&P) == 1 && has_diag("not owned by root"));
}

static void test_unsafe_directory_refused(void)
{
	char path[1024];

	if (geteuid() != 0)
		SKIP_TEST("needs root");
	new_root("unsafedir");
	put("/etc/mtag/policy.d/10-a.conf", "a.service sync\n");
	put("/usr/lib/mtag/policy.d/10-a.conf", "a.service async\n");
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.d", root);
	CHECK(chmod(path, 0777) == 0);
	load(NULL);
	CHECK(policy_error_count(&P) == 1 && has_diag("refused directory: writable by group or others"));
	/* The refused /etc file does not mask the vendor one. */
	CHECK_STR(mode_of("a.service"), "async");
}

static void test_not_a_regular_file(void)
{
	char path[1024];

	if (geteuid() != 0)
		SKIP_TEST("needs root");
	new_root("notreg");
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.conf", root);
	mkdirs(path);
	load(NULL);
	CHECK(policy_error_count(&P) == 1 && has_diag("refused: not a regular file"));
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) < 0)
		;
}

/* An editor rewriting policy.conf in place: truncate, write part of the
 * file, pause PAUSE_MS, write the rest (ROUNDS times); the parent loads the
 * policy once the first part is in.  Returns the child's pid. */
static pid_t rewrite_in_place(const char *path, const char *part1, const char *part2,
			      long pause_ms, int rounds)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		abort();
	if (pid == 0) {
		for (int i = 0; i < rounds; i++) {
			int fd = open(path, O_WRONLY | O_TRUNC);

			if (fd < 0 || write(fd, part1, strlen(part1)) < 0)
				_exit(1);
			if (i == 0 && write(p[1], "x", 1) != 1)
				_exit(1);
			sleep_ms(pause_ms);
			if (write(fd, part2, strlen(part2)) < 0)
				_exit(1);
			close(fd);
		}
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		abort();
	close(p[0]);
	return pid;
}

/* Issue 22: a half-written policy file is not taken for the policy. */
static void test_half_written_file_not_applied(void)
{
	char path[1024];
	struct timespec t0;
	pid_t pid;
	int st;

	if (geteuid() != 0)
		SKIP_TEST("needs root: policy files must be root-owned");
	new_root("halfwritten");
	put("/etc/mtag/policy.conf", "x.service sync\ndefault off\n");
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.conf", root);
	/* Cut inside the entry's mode: "x.service s" is an error. */
	pid = rewrite_in_place(path, "# edited\nx.service s", "ync\ndefault off\n", 30, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(load(NULL) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(mode_of("x.service"), "sync");
	CHECK(P.n_diags == 0);
	CHECK(P.n_entries == 2); /* x.service, default */
	/* ... and the wait is the settle time, not more. */
	CHECK(ms_since(&t0) < 1000);

	/* Truncated, and the writer stalled 150 ms before writing (a busy
	 * machine): an empty file would unwrap everything. */
	pid = rewrite_in_place(path, "", "x.service sync\n", 150, 1);
	CHECK(load(NULL) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(mode_of("x.service"), "sync");
	CHECK(P.n_diags == 0);
	/* The same, cut inside a line. */
	pid = rewrite_in_place(path, "x.service sy", "nc\n", 150, 1);
	CHECK(load(NULL) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(mode_of("x.service"), "sync");
	CHECK(P.n_diags == 0);

	/* Cut at a line boundary: the entry missing would be "off". */
	pid = rewrite_in_place(path, "# edited again\n", "x.service sync\n", 30, 1);
	CHECK(load(NULL) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(mode_of("x.service"), "sync");
	CHECK(P.n_diags == 0);
}

static void test_settled_file_read_at_once(void)
{
	char path[1024];
	struct timespec t0, times[2];

	if (geteuid() != 0)
		SKIP_TEST("needs root: policy files must be root-owned");
	new_root("settled");
	put("/etc/mtag/policy.conf", "x.service sync\n");
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.conf", root);
	/* Modified a day from now (a clock set back): settled, no 2 s wait. */
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec += 86400;
	times[1] = times[0];
	CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(load(NULL) == 1);
	CHECK(ms_since(&t0) < 1500);
	CHECK_STR(mode_of("x.service"), "sync");
	CHECK(P.n_diags == 0);
}

/* A file that never stops changing is read after 2 s, with an error. */
static void test_file_that_keeps_changing(void)
{
	char path[1024];
	pid_t pid;
	int st;

	if (geteuid() != 0)
		SKIP_TEST("needs root: policy files must be root-owned");
	new_root("changing");
	put("/etc/mtag/policy.conf", "x.service sync\n");
	snprintf(path, sizeof(path), "%s/etc/mtag/policy.conf", root);
	pid = rewrite_in_place(path, "x.service ", "sync\n", 10, 300);
	CHECK(load(NULL) == 1);
	CHECK(has_diag("still being written after 2000 ms"));
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &st, 0) == pid);
}

void run_conffiles_tests(void)
{
	RUN(test_half_written_file_not_applied);
	RUN(test_settled_file_read_at_once);
	RUN(test_file_that_keeps_changing);
	RUN(test_stamp);
	RUN(test_dropin_order_and_masking);
	RUN(test_vendor_defaults_rank_below_etc);
	RUN(test_missing_files_are_fine);
	RUN(test_single_file);
	RUN(test_unsafe_files_refused);
	RUN(test_unsafe_directory_refused);
	RUN(test_not_a_regular_file);
	policy_free(&P);
}
