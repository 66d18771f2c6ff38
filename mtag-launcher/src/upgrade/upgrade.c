/* SPDX-License-Identifier: GPL-2.0-or-later */
/* upgrade.c -- the upgraded start's state files and prctl (see upgrade.h). */
#include "upgrade.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cgunit.h"
#include "faultline.h"
#include "fileio.h"
#include "systemd-time.h"
#include "log.h"
#include "mte.h"
#include "util.h"

#define REC_MAX 8192

char *upgrade_path(const char *dir, const char *sub, const char *unit, const char *suffix)
{
	return xasprintf("%s/%s%s%s%s", dir ? dir : UPGRADE_BASE_DIR, sub, unit ? "/" : "",
			 unit ? unit : "", suffix ? suffix : "");
}

static const char *dir_unsafe(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "not owned by root";
	if (st->st_mode & 022)
		return "writable by group or others";
	return NULL;
}

int upgrade_dir_ensure(const char *dir, const char *sub, unsigned mode, const char **why)
{
	char *base = xstrdup(dir ? dir : UPGRADE_BASE_DIR);
	char *path = upgrade_path(dir, sub, NULL, NULL);
	struct stat st;
	int r = 0;

	*why = NULL;
	if (mkdir(base, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		*why = "cannot create its parent";
		goto out;
	}
	if (mkdir(path, mode) < 0 && errno != EEXIST) {
		r = -errno;
		*why = "cannot create it";
		goto out;
	}
	if (lstat(path, &st) < 0) {
		r = -errno;
		*why = "cannot stat it";
		goto out;
	}
	*why = dir_unsafe(&st);
	if (*why) {
		r = -EPERM;
		goto out;
	}
	/* Made by an older version with another mode (upgrade-grant was
	 * 0755: anyone could list which units had a fault). */
	if ((st.st_mode & 07777) != (mode & 07777) && chmod(path, (mode_t)mode) < 0) {
		r = -errno;
		*why = "cannot set its mode";
	}
out:
	free(base);
	free(path);
	return r;
}

int upgrade_write(const char *path, const struct upgrade_rec *r, unsigned mode)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -errno;
	fprintf(f, "fault_usec=%" PRIu64 "\n", r->fault_usec);
	if (r->fault_cursor[0])
		fprintf(f, "fault_cursor=%s\n", r->fault_cursor);
	if (r->fault_comm[0])
		fprintf(f, "fault_comm=%s\n", r->fault_comm);
	if (r->invocation[0])
		fprintf(f, "invocation=%s\n", r->invocation);
	if (r->window_ns)
		fprintf(f, "window_ns=%" PRIu64 "\n", r->window_ns);
	if (r->granted_usec)
		fprintf(f, "granted_usec=%" PRIu64 "\n", r->granted_usec);
	err = ferror(f) ? -ENOMEM : 0;
	if (fclose(f) != 0 && !err)
		err = -ENOMEM;
	/* Under /run (tmpfs): atomic, not durable. */
	if (!err)
		err = write_file_replace(path, buf, len, (mode_t)mode, false);
	free(buf);
	return err;
}

static void copy_val(char *dst, size_t size, const char *v, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
	/* One line of printable text: nothing that could forge another. */
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static uint64_t num_val(const char *v, size_t len)
{
	uint64_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9' || n > (UINT64_MAX - 9) / 10)
			return 0;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	return n;
}

void upgrade_parse(const char *buf, struct upgrade_rec *r)
{
	memset(r, 0, sizeof(*r));
	while (*buf) {
		const char *nl = strchr(buf, '\n'), *eq;
		size_t len = nl ? (size_t)(nl - buf) : strlen(buf);

		eq = memchr(buf, '=', len);
		if (eq) {
			size_t kl = (size_t)(eq - buf), vl = len - kl - 1;
			const char *v = eq + 1;

#define KEY(k) (kl == strlen(k) && strncmp(buf, k, kl) == 0)
			if (KEY("fault_usec"))
				r->fault_usec = num_val(v, vl);
			else if (KEY("fault_cursor"))
				copy_val(r->fault_cursor, sizeof(r->fault_cursor), v, vl);
			else if (KEY("fault_comm"))
				copy_val(r->fault_comm, sizeof(r->fault_comm), v, vl);
			else if (KEY("invocation"))
				copy_val(r->invocation, sizeof(r->invocation), v, vl);
			else if (KEY("window_ns"))
				r->window_ns = num_val(v, vl);
			else if (KEY("granted_usec"))
				r->granted_usec = num_val(v, vl);
#undef KEY
		}
		buf += len + (nl ? 1 : 0);
	}
}

int upgrade_read(const char *path, struct upgrade_rec *r)
{
	char *buf = NULL;
	size_t len;
	int fd, e;

	memset(r, 0, sizeof(*r));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	e = read_fd_all(fd, REC_MAX, &buf, &len);
	close(fd);
	if (e < 0)
		return e;
	upgrade_parse(buf, r);
	free(buf);
	return 1;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t upgrade_boottime_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t upgrade_realtime_usec(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000;
}

int upgrade_set_kernel(uint64_t until_ns)
{
	long r = mte_prctl(PR_SET_MTE_UPGRADE, (unsigned long)until_ns, 0);

	return r < 0 ? (int)r : 0;
}

long upgrade_get_kernel(void)
{
	return mte_prctl(PR_GET_MTE_UPGRADE, 0, 0);
}

enum upgrade_kerr upgrade_kernel_classify(int set_err, long get_ret)
{
	if (set_err != -EINVAL)
		return UPGRADE_KERR_OTHER;
	return get_ret >= 0 ? UPGRADE_KERR_REFUSED : UPGRADE_KERR_ABSENT;
}

static bool invocation_valid(const char *s)
{
	size_t n = strlen(s);

	if (n != 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void fmt_time(uint64_t usec, char *buf, size_t len)
{
	timestamp_format_local(usec, "%Y-%m-%d %H:%M:%S", "(unknown time)", buf, len);
}

bool upgrade_kmsg_async_fault(const char *buf, size_t n, const char *unit, uint64_t now_usec)
{
	const char *end = buf + n;
	bool found = false;

	while (buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		const char *le = nl ? nl : end, *msg;
		unsigned prio;
		unsigned long long seq, usec;
		struct mte_fault f;
		char head[64], ub[256];
		size_t hl;

		/* A record "PRIO,SEQ,USEC,FLAGS;MESSAGE"; its dictionary lines
		 * (" KEY=value") and anything else do not parse. */
		msg = memchr(buf, ';', (size_t)(le - buf));
		hl = msg ? (size_t)(msg - buf) : 0;
		if (msg && hl < sizeof(head)) {
			memcpy(head, buf, hl);
			head[hl] = '\0';
			msg++;
			/* Facility 0: the kernel's own line (a process writing
			 * to /dev/kmsg gets LOG_USER at least). */
			if (sscanf(head, "%u,%llu,%llu", &prio, &seq, &usec) == 3 && prio <= 7 &&
			    (usec > now_usec || now_usec - usec <= UPGRADE_KMSG_RECENT_USEC) &&
			    mte_fault_parse(msg, (size_t)(le - msg), &f) == 1 &&
			    f.kind == MTE_FAULT_ASYNC && f.report == MTE_FAULT_SIGNAL &&
			    /* The unit by systemd's rules, as mtag-faultd records
			     * it: never a suffix (a user's own
			     * .../user@1000.service/x/nginx.service is
			     * user@1000.service's). */
			    cgroup_system_unit(f.cgroup, ub, sizeof(ub)) && strcmp(ub, unit) == 0)
				found = true;
		}
		buf = le + (nl ? 1 : 0);
	}
	return found;
}

/*
 * Did the kernel log an async fault line of UNIT in the last
 * UPGRADE_KMSG_RECENT_USEC?  Read from /dev/kmsg (root).  Used only to
 * wait for mtag-faultd's record: systemd may restart a service
 * (RestartSec= defaults to 100 ms) before faultd has read the line from
 * the journal.
 */
static bool kmsg_recent_async_fault(const char *unit)
{
	char rec[8192];
	struct timespec ts;
	uint64_t now;
	bool found = false;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));

		if (n < 0 && errno == EPIPE)
			continue; /* overwritten under us: go on */
		if (n <= 0)
			break;
		if (upgrade_kmsg_async_fault(rec, (size_t)n, unit, now))
			found = true;
	}
	close(fd);
	return found;
}

/* The owner of a grant: the service's user, USER ($USER, which systemd
 * sets for every command of a unit with User= or DynamicUser=, "+"
 * commands included); none: root, as the service then runs.  0 or -errno
 * (-ENOENT: no such user). */
static int grant_owner(const char *user, uid_t *uid)
{
	struct passwd *pw;

	*uid = 0;
	if (!user || !*user)
		return 0;
	errno = 0;
	pw = getpwnam(user);
	if (!pw)
		return errno ? -errno : -ENOENT;
	*uid = pw->pw_uid;
	return 0;
}

int upgrade_prepare(const char *dir, const char *unit, const char *invocation)
{
	uid_t owner;
	char *fault = upgrade_path(dir, "upgrade", unit, ".fault");
	char *used = upgrade_path(dir, "upgrade", unit, ".used");
	char *grant = upgrade_path(dir, "upgrade-grant", unit, NULL);
	struct upgrade_rec f, u;
	const char *why;
	char when[64], when_used[64];
	int r;

	if (!invocation || !invocation_valid(invocation)) {
		log_msg(LOG_WARNING, MSGID_UPGRADE_REFUSED,
			"%s: --upgrade-prepare needs $INVOCATION_ID (run it as ExecStartPre=+ of the unit): no upgraded start",
			unit);
		goto out;
	}
	if ((r = upgrade_dir_ensure(dir, "upgrade", 0700, &why)) < 0 ||
	    (r = upgrade_dir_ensure(dir, "upgrade-grant", 0711, &why)) < 0) {
		log_msg(LOG_ERR, MSGID_UPGRADE_REFUSED, "%s: %s/upgrade: %s (%s): no upgraded start",
			unit, dir ? dir : UPGRADE_BASE_DIR, why, strerror(-r));
		goto out;
	}
	/* A grant is for one start: drop the last one's first. */
	if (unlink(grant) < 0 && errno != ENOENT)
		log_msg(LOG_WARNING, NULL, "%s: cannot remove %s: %s", unit, grant, strerror(errno));
	r = upgrade_read(fault, &f);
	if (r == 0 && access(used, F_OK) != 0 && kmsg_recent_async_fault(unit)) {
		/* The kernel logged an async fault of the unit a moment ago:
		 * give mtag-faultd up to 5 s to record it. */
		for (int i = 0; i < 50 && r == 0; i++) {
			struct timespec d = { 0, 100000000L };

			nanosleep(&d, NULL);
			r = upgrade_read(fault, &f);
		}
		if (r == 0)
			log_msg(LOG_WARNING, MSGID_UPGRADE_REFUSED,
				"%s: the kernel logged an async tag-check fault of it, but mtag-faultd has not recorded it (is mtag-faultd.service running?): no upgraded start",
				unit);
	}
	if (r == 0)
		goto out;
	if (r < 0) {
		log_msg(LOG_ERR, MSGID_UPGRADE_REFUSED, "%s: cannot read %s: %s: no upgraded start",
			unit, fault, strerror(-r));
		goto out;
	}
	/* Consumed whatever happens next: one record, one decision. */
	if (unlink(fault) < 0) {
		log_msg(LOG_ERR, MSGID_UPGRADE_REFUSED, "%s: cannot remove %s: %s: no upgraded start",
			unit, fault, strerror(errno));
		goto out;
	}
	fmt_time(f.fault_usec, when, sizeof(when));
	r = upgrade_read(used, &u);
	if (r != 0) {
		struct log_struct ls = { 0 };

		fmt_time(u.granted_usec, when_used, sizeof(when_used));
		log_struct_begin(&ls, LOG_WARNING, MSGID_UPGRADE_REFUSED,
				 "%s: async tag-check fault at %s: no upgraded start, the limit of one per boot was used at %s; the service stays in async",
				 unit, when, when_used);
		log_struct_add(&ls, "MTAG_UNIT", "%s", unit);
		log_struct_add(&ls, "MTAG_UPGRADE", "limit");
		log_struct_add(&ls, "MTAG_UPGRADE_FAULT_CURSOR", "%s", f.fault_cursor);
		log_struct_add(&ls, "MTAG_UPGRADE_FAULT_USEC", "%" PRIu64, f.fault_usec);
		log_struct(&ls);
		log_struct_free(&ls);
		goto out;
	}
	if ((r = grant_owner(getenv("USER"), &owner)) < 0) {
		log_msg(LOG_ERR, MSGID_UPGRADE_REFUSED, "%s: the service's user '%s' ($USER): %s: no upgraded start",
			unit, getenv("USER"), r == -ENOENT ? "no such user" : strerror(-r));
		goto out;
	}
	snprintf(f.invocation, sizeof(f.invocation), "%s", invocation);
	f.granted_usec = upgrade_realtime_usec();
	if ((r = upgrade_write(used, &f, 0600)) < 0) {
		log_msg(LOG_ERR, MSGID_UPGRADE_REFUSED, "%s: cannot write %s: %s: no upgraded start",
			unit, used, strerror(-r));
		goto out;
	}
	/* Root's alone, then the service's user's: the launcher reads it as
	 * that user; nobody else learns of the fault from it. */
	r = upgrade_write(grant, &f, 0400);
	if (r == 0 && owner != 0 && chown(grant, owner, (gid_t)-1) < 0)
		r = -errno;
	if (r < 0) {
		log_msg(LOG_ERR, MSGID_UPGRADE_REFUSED, "%s: cannot write %s: %s: no upgraded start",
			unit, grant, strerror(-r));
		unlink(grant);
		goto out;
	}
	log_msg(LOG_INFO, NULL, "%s: async tag-check fault at %s: this start (invocation %s) runs in sync for the policy's upgrade= window",
		unit, when, invocation);
out:
	free(fault);
	free(used);
	free(grant);
	return 0;
}

int upgrade_grant_for(const char *dir, const char *unit, const char *invocation,
		      struct upgrade_rec *r)
{
	char *grant = upgrade_path(dir, "upgrade-grant", unit, NULL);
	struct stat st;
	int fd, e;
	char *buf = NULL;
	size_t len;

	memset(r, 0, sizeof(*r));
	if (!invocation || !invocation_valid(invocation)) {
		free(grant);
		return 0;
	}
	fd = open(grant, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(grant);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* Only root (--upgrade-prepare) writes grants. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	e = read_fd_all(fd, REC_MAX, &buf, &len);
	close(fd);
	if (e < 0)
		return e;
	upgrade_parse(buf, r);
	free(buf);
	return strcmp(r->invocation, invocation) == 0 ? 1 : 0;
}
