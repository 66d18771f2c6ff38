/* test-upgrade.c -- the upgraded start's state files (upgrade.h): the
 * record format, --upgrade-prepare's consumption of a fault record, the
 * once-per-boot limit, the grant tied to one $INVOCATION_ID, and the
 * checks that keep a service from forging one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "upgrade.h"
#include "util.h"
#include "unit.h"

#define INV1 "0123456789abcdef0123456789abcdef"
#define INV2 "fedcba9876543210fedcba9876543210"
#define UNIT "memcached.service"

static char *upg_tmpdir(void)
{
	char tmpl[] = "/tmp/mtag-upgrade-test.XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? xstrdup(d) : NULL;
}

static void rm_rf(const char *d)
{
	char *cmd = xasprintf("rm -rf '%s'", d);

	if (system(cmd) != 0)
		printf("# cannot remove %s\n", d);
	free(cmd);
}

static int exists(const char *dir, const char *sub, const char *unit, const char *suffix)
{
	char *p = upgrade_path(dir, sub, unit, suffix);
	int r = access(p, F_OK) == 0;

	free(p);
	return r;
}

/* What faultd writes: the record of an async fault. */
static void write_fault(const char *dir, uint64_t usec, const char *cursor)
{
	struct upgrade_rec r = { .fault_usec = usec };
	const char *why;
	char *p = upgrade_path(dir, "upgrade", UNIT, ".fault");

	snprintf(r.fault_cursor, sizeof(r.fault_cursor), "%s", cursor);
	snprintf(r.fault_comm, sizeof(r.fault_comm), "memcached[412]");
	CHECK(upgrade_dir_ensure(dir, "upgrade", 0700, &why) == 0);
	CHECK(upgrade_write(p, &r, 0600) == 0);
	free(p);
}

static void test_format(void)
{
	struct upgrade_rec r;
	char *d = upg_tmpdir(), *p;
	const char *why;
	struct stat st;

	CHECK(d != NULL);
	if (!d)
		return;
	upgrade_parse("fault_usec=1700000000123456\nfault_cursor=s=ab;i=12\n"
		      "junk\nwindow_ns=600000000000\ninvocation=" INV1 "\n"
		      "fault_comm=evil\x1b[2Jname\nfault_usec_extra=9\ngranted_usec=12x\n", &r);
	CHECK(r.fault_usec == 1700000000123456ull);
	CHECK_STR(r.fault_cursor, "s=ab;i=12");
	CHECK_STR(r.invocation, INV1);
	CHECK(r.window_ns == 600000000000ull);
	CHECK_STR(r.fault_comm, "evil?[2Jname");   /* no control characters */
	CHECK(r.granted_usec == 0);                 /* not a number: none */

	CHECK(upgrade_dir_ensure(d, "upgrade", 0700, &why) == 0);
	p = upgrade_path(d, "upgrade", UNIT, ".fault");
	CHECK(upgrade_write(p, &r, 0600) == 0);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
	memset(&r, 0, sizeof(r));
	CHECK(upgrade_read(p, &r) == 1 && r.fault_usec == 1700000000123456ull &&
	      strcmp(r.fault_cursor, "s=ab;i=12") == 0);
	free(p);
	p = upgrade_path(d, "upgrade", "none.service", ".fault");
	CHECK(upgrade_read(p, &r) == 0);
	free(p);
	rm_rf(d);
	free(d);
}

static void test_dir_checks(void)
{
	char *d = upg_tmpdir(), *sub;
	const char *why;

	if (!d)
		return;
	sub = upgrade_path(d, "upgrade", NULL, NULL);
	CHECK(upgrade_dir_ensure(d, "upgrade", 0700, &why) == 0);
	/* A directory others can write to: someone could plant a record. */
	CHECK(chmod(sub, 0777) == 0);
	CHECK(upgrade_dir_ensure(d, "upgrade", 0700, &why) == -EPERM);
	CHECK(why && strcmp(why, "writable by group or others") == 0);
	CHECK(rmdir(sub) == 0 && symlink("/tmp", sub) == 0);
	CHECK(upgrade_dir_ensure(d, "upgrade", 0700, &why) == -EPERM);
	CHECK(why && strcmp(why, "not a directory") == 0);
	free(sub);
	rm_rf(d);
	free(d);
}

static void test_prepare(void)
{
	struct upgrade_rec g;
	char *d = upg_tmpdir(), *p;
	struct stat st;

	if (!d)
		return;
	/* No record: no grant. */
	CHECK(upgrade_prepare(d, UNIT, INV1) == 0);
	CHECK(upgrade_grant_for(d, UNIT, INV1, &g) == 0);

	/* A record: consumed, a grant for this start, the limit used. */
	write_fault(d, 1700000000000000ull, "s=k;i=1");
	CHECK(upgrade_prepare(d, UNIT, INV1) == 0);
	CHECK(!exists(d, "upgrade", UNIT, ".fault"));
	CHECK(exists(d, "upgrade", UNIT, ".used"));
	CHECK(upgrade_grant_for(d, UNIT, INV1, &g) == 1);
	CHECK(g.fault_usec == 1700000000000000ull && strcmp(g.fault_cursor, "s=k;i=1") == 0);
	CHECK(g.granted_usec > 0);
	p = upgrade_path(d, "upgrade-grant", UNIT, NULL);
	/* Root's only ($USER unset: the service runs as root), in a
	 * directory nobody else can list. */
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0400 && st.st_uid == geteuid());
	{
		char *gd = upgrade_path(d, "upgrade-grant", NULL, NULL);

		CHECK(stat(gd, &st) == 0 && (st.st_mode & 0777) == 0711);
		free(gd);
	}
	/* Another start is not this one's. */
	CHECK(upgrade_grant_for(d, UNIT, INV2, &g) == 0);
	CHECK(upgrade_grant_for(d, UNIT, NULL, &g) == 0);
	CHECK(upgrade_grant_for(d, UNIT, "../../etc", &g) == 0);

	/* The next start without a new fault: the grant is gone. */
	CHECK(upgrade_prepare(d, UNIT, INV2) == 0);
	CHECK(!exists(d, "upgrade-grant", UNIT, NULL));
	CHECK(upgrade_grant_for(d, UNIT, INV1, &g) == 0);

	/* A second async fault this boot: over the limit, record consumed,
	 * no grant. */
	write_fault(d, 1700000000500000ull, "s=k;i=2");
	CHECK(upgrade_prepare(d, UNIT, INV2) == 0);
	CHECK(!exists(d, "upgrade", UNIT, ".fault"));
	CHECK(upgrade_grant_for(d, UNIT, INV2, &g) == 0);

	/* Without $INVOCATION_ID nothing is granted (the record stays). */
	{
		char *u = upgrade_path(d, "upgrade", UNIT, ".used");

		CHECK(unlink(u) == 0);	/* as after a reboot */
		free(u);
	}
	write_fault(d, 1700000000600000ull, "s=k;i=3");
	CHECK(upgrade_prepare(d, UNIT, NULL) == 0);
	CHECK(upgrade_prepare(d, UNIT, "not-an-id") == 0);
	CHECK(exists(d, "upgrade", UNIT, ".fault"));

	/* A grant others could have written is refused. */
	CHECK(upgrade_prepare(d, UNIT, INV1) == 0);
	CHECK(upgrade_grant_for(d, UNIT, INV1, &g) == 1);
	CHECK(chmod(p, 0666) == 0);
	CHECK(upgrade_grant_for(d, UNIT, INV1, &g) == -EPERM);
	free(p);
	rm_rf(d);
	free(d);
}

/* --upgrade-prepare waits for faultd's record only after a kernel line of
 * the unit itself: its cgroup by systemd's rules, never a suffix. */
static void test_kmsg_match(void)
{
	const uint64_t now = 5000000000ULL; /* CLOCK_MONOTONIC us of the records */
#define ASYNC(cg) "mte: async tag check fault in nginx[91]: pid 91 cgroup " cg "\n"
	static const struct {
		const char *rec, *unit;
		bool want;
	} cases[] = {
		{ "6,101,4999000000,-;" ASYNC("/system.slice/nginx.service"), "nginx.service", true },
		{ "6,101,4999000000,-;" ASYNC("/system.slice/system-web.slice/nginx.service/worker"), "nginx.service", true },
		/* A user's own unit of the same name (the suffix matched it). */
		{ "6,102,4999000000,-;" ASYNC("/user.slice/user-1000.slice/user@1000.service/x/nginx.service"), "nginx.service", false },
		{ "6,102,4999000000,-;" ASYNC("/user.slice/user-1000.slice/user@1000.service/x/nginx.service"), "user@1000.service", true },
		{ "6,103,4999000000,-;" ASYNC("/system.slice/nginx.service (report mode: tag checks off in this thread)"), "nginx.service", false },
		{ "6,104,4000000000,-;" ASYNC("/system.slice/nginx.service"), "nginx.service", false }, /* too old */
		{ "14,105,4999000000,-;" ASYNC("/system.slice/nginx.service"), "nginx.service", false }, /* LOG_USER */
		{ "6,106,4999000000,-;mte: sync tag check fault in nginx[96]: addr 0x0f00007fbb594d80 pointer tag 0xf memory tag 0x0 pc 0xaaaab0c4a1c0 pid 96 tags ffffffff[0]22222222 cgroup /system.slice/nginx.service\n",
		  "nginx.service", false },
		{ "6,107,4999000000,-;" ASYNC("/system.slice/xnginx.service") " SUBSYSTEM=cpu\n", "nginx.service", false },
		{ "6,101,4999000000,-;" ASYNC("/system.slice/nginx.service"), "x.service", false },
		/* Several records in one buffer. */
		{ "6,102,4999000000,-;" ASYNC("/user.slice/user-1000.slice/user@1000.service/x/nginx.service")
		  "6,101,4999000000,-;" ASYNC("/system.slice/nginx.service"), "nginx.service", true },
	};
#undef ASYNC

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = upgrade_kmsg_async_fault(cases[i].rec, strlen(cases[i].rec), cases[i].unit, now);

		if (got != cases[i].want)
			printf("# case %zu (%s): %d\n", i, cases[i].unit, got);
		CHECK(got == cases[i].want);
	}
}

/* EINVAL from PR_SET_MTE_UPGRADE: "no timed upgrade" only when the GET
 * fails too; a kernel that has it refused the deadline. */
static void test_kernel_errors(void)
{
	CHECK(upgrade_kernel_classify(-EINVAL, -EINVAL) == UPGRADE_KERR_ABSENT);
	CHECK(upgrade_kernel_classify(-EINVAL, 0) == UPGRADE_KERR_REFUSED);
	CHECK(upgrade_kernel_classify(-EINVAL, 12000) == UPGRADE_KERR_REFUSED);
	CHECK(upgrade_kernel_classify(-ENOSYS, -ENOSYS) == UPGRADE_KERR_OTHER);
	CHECK(upgrade_kernel_classify(-EPERM, 0) == UPGRADE_KERR_OTHER);
#if !defined(__aarch64__)
	/* Not the mtag arm64 kernel: both fail, "absent". */
	CHECK(upgrade_kernel_classify(upgrade_set_kernel(1), upgrade_get_kernel()) == UPGRADE_KERR_ABSENT);
#endif
}

/* Can UID read the grant at PATH (a child that runs as UID)?  1, 0 (the
 * open failed with EACCES), -1 (the test could not tell). */
static int uid_reads(const char *dir, uid_t uid)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct upgrade_rec g;
		int r;

		if (setgid(65534) < 0 || setuid(uid) < 0)
			_exit(3);
		r = upgrade_grant_for(dir, UNIT, INV1, &g);
		_exit(r == 1 ? 0 : r == -EACCES ? 1 : 2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return -1;
	return WEXITSTATUS(st) == 0;
}

/* The grant tells of a fault of the service: readable by root and the
 * service's user ($USER) only. */
static void test_grant_private(void)
{
	struct passwd *pw = getpwnam("nobody");
	char *d, *p;
	struct stat st;

	if (geteuid() != 0 || !pw || pw->pw_uid == 0)
		SKIP_TEST("needs root and a user 'nobody'");
	d = upg_tmpdir();
	if (!d)
		return;
	CHECK(chmod(d, 0755) == 0);
	write_fault(d, 1700000000000000ull, "s=k;i=1");
	setenv("USER", "nobody", 1);
	CHECK(upgrade_prepare(d, UNIT, INV1) == 0);
	unsetenv("USER");
	p = upgrade_path(d, "upgrade-grant", UNIT, NULL);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0400 && st.st_uid == pw->pw_uid);
	free(p);
	/* The service's user reads it; another user does not. */
	CHECK(uid_reads(d, pw->pw_uid) == 1);
	CHECK(uid_reads(d, pw->pw_uid + 1000) == 0);

	/* A user that does not exist: no grant at all, rather than one
	 * everybody reads. */
	{
		char *u = upgrade_path(d, "upgrade", UNIT, ".used");

		CHECK(unlink(u) == 0);
		free(u);
	}
	write_fault(d, 1700000000100000ull, "s=k;i=2");
	setenv("USER", "no-such-user-mtag", 1);
	CHECK(upgrade_prepare(d, UNIT, INV1) == 0);
	unsetenv("USER");
	CHECK(!exists(d, "upgrade-grant", UNIT, NULL));
	rm_rf(d);
	free(d);
}

void run_upgrade_tests(void)
{
	RUN(test_grant_private);
	RUN(test_kernel_errors);
	RUN(test_kmsg_match);
	log_setup("mtag-unit", LOG_STDERR, true);
	RUN(test_format);
	RUN(test_dir_checks);
	RUN(test_prepare);
}
