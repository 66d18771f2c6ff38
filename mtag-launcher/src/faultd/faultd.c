/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultd.c -- the journal entry of one kernel tag-check fault line, and
 * mtag-faultd's cursor file (see faultd.h). */
#include "faultd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bugid.h"
#include "cause.h"
#include "cgunit.h"
#include "escape.h"
#include "faultfields.h"
#include "faultline.h"
#include "fileio.h"
#include "procmaps.h"
#include "procmte.h"
#include "util.h"

#define IDENT "mtag-faultd"
#define EM_DASH "\xe2\x80\x94"
#define STATUS_MAX (64 * 1024)
#define CURSOR_MAX 4096

static void add(struct faultd_entry *e, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct faultd_entry *e, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, fmt);
	v = xvasprintf(fmt, ap);
	va_end(ap);
	grow_array((void **)&e->fields, &e->cap, e->n + 1, sizeof(*e->fields));
	e->fields[e->n++] = xasprintf("%s=%s", name, v);
	free(v);
}

void faultd_entry_free(struct faultd_entry *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->fields[i]);
	free(e->fields);
	e->fields = NULL;
	e->n = e->cap = 0;
}

const char *faultd_entry_get(const struct faultd_entry *e, const char *name)
{
	size_t l = strlen(name);

	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->fields[i], name, l) == 0 && e->fields[i][l] == '=')
			return e->fields[i] + l + 1;
	return NULL;
}

void faultd_entry_print(FILE *f, const struct faultd_entry *e)
{
	for (size_t i = 0; i < e->n; i++)
		fprintf(f, "%s\n", e->fields[i]);
	fputc('\n', f);
}

/* --- the faulting process, if it is still there -------------------------- */

/* Is PROC/PID/task/TID the thread of the line (same comm)?  A PID reused
 * since the fault has another comm, most likely. */
static bool same_thread(const char *proc, pid_t pid, pid_t tid, const char *comm)
{
	char path[4096], *c;
	bool same;
	size_t l;

	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", proc, (int)pid, (int)tid);
	c = read_file_head(path, STATUS_MAX, NULL);
	if (!c)
		return false;
	l = strcspn(c, "\n");
	c[l] = '\0';
	/* The kernel's comm is at most 15 bytes; the line may carry more only
	 * if a kernel prints differently: compare what both have. */
	same = strncmp(c, comm, 15) == 0;
	free(c);
	return same;
}

/* MTE_TCF (and MTE_Report) of PROC/PID/task/TID/status in the launcher's
 * words (MTAG_MODE of MSGID_APPLIED): off, sync, async, asymm (the kernel's
 * "sync,async": each CPU's preferred mode) or report.  NULL if unknown. */
static const char *thread_mode(const char *proc, pid_t pid, pid_t tid)
{
	struct thread_mte t;

	if (proc_thread_mte(proc, pid, tid, &t) < 0 || !t.has_tcf)
		return NULL;
	return tcf_mode_word(t.tcf, t.has_report && t.report_on);
}

/* "/usr/sbin/nginx+0x4a1c0" for PC from PROC/PID/maps, into BUF. */
static bool pc_object(const char *proc, pid_t pid, uint64_t pc, char *buf, size_t len)
{
	char path[4096], *maps;
	bool ok;

	snprintf(path, sizeof(path), "%s/%d/maps", proc, (int)pid);
	maps = read_file_head(path, STATUS_MAX, NULL);
	if (!maps)
		return false;
	ok = procmaps_symbolize(maps, strlen(maps), pc, buf, len) == 0;
	free(maps);
	return ok;
}

/* The bug's identity (bugid.h): MTAG_OBJECT (escaped: a path is any
 * bytes its owner chose), MTAG_OFFSET, MTAG_BUILD_ID, MTAG_PACKAGE and
 * MTAG_PACKAGE_VERSION, MTAG_SIGNATURE, and MTAG_BUG_NOTE for what is
 * missing. */
static void add_bug(struct faultd_entry *e, const struct bug_object *b, const char *cause)
{
	char sig[BUG_SIGNATURE_LEN + 1];
	size_t l = strlen(b->path);
	char *epath = xmalloc(4 * l + 1);

	add(e, "MTAG_OBJECT", "%s", cescape(b->path, epath, 4 * l + 1));
	free(epath);
	add(e, "MTAG_OFFSET", "0x%" PRIx64, b->offset);
	if (b->build_id[0])
		add(e, "MTAG_BUILD_ID", "%s", b->build_id);
	if (b->package[0]) {
		add(e, "MTAG_PACKAGE", "%s", b->package);
		add(e, "MTAG_PACKAGE_VERSION", "%s", b->version);
	}
	if (bug_signature(b->build_id, b->package, b->version, b->path, cause, b->offset, sig))
		add(e, "MTAG_SIGNATURE", "%s", sig);
	if (b->note[0])
		add(e, "MTAG_BUG_NOTE", "%s", b->note);
}

/* --- the entry ---------------------------------------------------------- */

static const char *action_name(enum mte_fault_report r)
{
	switch (r) {
	case MTE_FAULT_REPORT_USER:
		return "report";
	case MTE_FAULT_REPORT_SYSCALL:
		return "report-syscall";
	case MTE_FAULT_SIGNAL:
		break;
	}
	return "signal";
}

static const char *action_text(enum mte_fault_report r)
{
	switch (r) {
	case MTE_FAULT_REPORT_USER:
		return "reported, the service goes on (report mode)";
	case MTE_FAULT_REPORT_SYSCALL:
		return "reported in a system call, the service goes on (report mode)";
	case MTE_FAULT_SIGNAL:
		break;
	}
	return "SIGSEGV";
}

static const char *cause_phrase(enum mte_cause c)
{
	switch (c) {
	case MTE_CAUSE_OVERFLOW:
		return "heap buffer overflow";
	case MTE_CAUSE_UNDERFLOW:
		return "heap buffer underflow";
	case MTE_CAUSE_USE_AFTER_FREE:
		return "use after free";
	case MTE_CAUSE_WILD:
		return "wild pointer";
	case MTE_CAUSE_UNKNOWN:
		break;
	}
	return "cause unknown";
}

/* The unit fields of an entry (either may be NULL). */
static void add_units(struct faultd_entry *e, const char *unit, const char *user_unit)
{
	if (unit) {
		add(e, "MTAG_UNIT", "%s", unit);
		/* "journalctl -u UNIT" shows entries with this field from
		 * UID 0, as it does systemd-coredump's. */
		add(e, "OBJECT_SYSTEMD_UNIT", "%s", unit);
	}
	if (user_unit) {
		add(e, "MTAG_USER_UNIT", "%s", user_unit);
		add(e, "OBJECT_SYSTEMD_USER_UNIT", "%s", user_unit);
	}
}

static void add_origin(struct faultd_entry *e, const struct faultd_kmsg *k, const char *line)
{
	add(e, "MTAG_KERNEL_MESSAGE", "%s", line);
	if (k->cursor)
		add(e, "MTAG_KERNEL_CURSOR", "%s", k->cursor);
	if (k->realtime_usec)
		add(e, "MTAG_KERNEL_USEC", "%" PRIu64, k->realtime_usec);
}

static void build_fault(const char *proc, const struct faultd_kmsg *k, const char *line,
			const struct mte_fault *f, struct faultd_entry *e)
{
	struct mte_cause_info ci;
	char unit_buf[256], user_unit_buf[256], memtag[16], object[4096], tags[32], who[320];
	/* systemd's rules: a unit of a user's own manager is never taken for
	 * a system unit of the same name (see cgunit.h). */
	const char *unit = cgroup_system_unit(f->cgroup, unit_buf, sizeof(unit_buf));
	const char *user_unit = unit ? cgroup_user_unit(f->cgroup, user_unit_buf, sizeof(user_unit_buf)) : NULL;
	const char *mode = NULL;
	pid_t pid = f->pid ? f->pid : f->tid; /* /proc/TID works for a thread too */
	bool have_object = false, sync = f->kind == MTE_FAULT_SYNC;
	struct bug_object *bug = NULL;
	const char *bug_why = NULL;
	char *msg;

	mte_classify(f, NULL, &ci);
	if (proc && pid > 0 && f->tid > 0 && same_thread(proc, pid, f->tid, f->comm)) {
		mode = thread_mode(proc, pid, f->tid);
		if (sync)
			have_object = pc_object(proc, pid, f->pc, object, sizeof(object));
		/* The bug's identity (bugid.h); the thread checked again
		 * after it, as the PID may have been reused meanwhile. */
		if (have_object) {
			bug = xmalloc(sizeof(*bug));
			if (bug_object_of_pc(proc, pid, f->pc, bug, &bug_why) != 1 ||
			    !same_thread(proc, pid, f->tid, f->comm)) {
				if (!bug_why)
					bug_why = "the thread is gone (its PID may be reused)";
				free(bug);
				bug = NULL;
			}
		}
	}
	if (f->mem_tag == MTE_TAG_UNKNOWN)
		snprintf(memtag, sizeof(memtag), "unknown");
	else
		snprintf(memtag, sizeof(memtag), "0x%x", (unsigned)f->mem_tag);
	/* A process names itself (PR_SET_NAME): MESSAGE, which journalctl
	 * prints as it is, gets its name escaped (escape.h); MTAG_COMM and
	 * MTAG_KERNEL_MESSAGE keep the kernel's bytes, as journald's own
	 * kernel entry and _COMM do, for exact matches. */
	{
		char ecomm[4 * sizeof(f->comm) + 1];

		snprintf(who, sizeof(who), "%s[%d]", cescape(f->comm, ecomm, sizeof(ecomm)), (int)pid);
	}

	if (sync) {
		bool conf = ci.cause != MTE_CAUSE_UNKNOWN && ci.confidence != MTE_CONF_NONE;

		msg = xasprintf("%s%s%s sync tag-check fault at 0x%016" PRIx64
				" (pointer tag 0x%x, memory tag %s): %s%s%s " EM_DASH " %s",
				unit ? unit : "", unit ? ": " : "", who, f->addr, f->ptr_tag,
				memtag, cause_phrase(ci.cause), conf ? ", " : "",
				conf ? mte_confidence_name(ci.confidence) : "",
				action_text(f->report));
	} else {
		msg = xasprintf("%s%s%s async tag-check fault (no address in async mode, cause unknown) "
				EM_DASH " %s",
				unit ? unit : "", unit ? ": " : "", who, action_text(f->report));
	}

	add(e, "MESSAGE", "%s", msg);
	free(msg);
	add(e, "MESSAGE_ID", "%s", MSGID_FAULT);
	add(e, "PRIORITY", "%d", f->report == MTE_FAULT_SIGNAL ? 3 : 4);
	add(e, "SYSLOG_IDENTIFIER", IDENT);
	add(e, "MTAG_FAULT_KIND", "%s", sync ? "sync" : "async");
	add(e, "MTAG_FAULT_ACTION", "%s", action_name(f->report));
	add_units(e, unit, user_unit);
	if (f->cgroup[0])
		add(e, "MTAG_CGROUP", "%s", f->cgroup);
	if (f->pid)
		add(e, "MTAG_PID", "%d", (int)f->pid);
	add(e, "MTAG_TID", "%d", (int)f->tid);
	add(e, "MTAG_COMM", "%s", f->comm);
	if (mode)
		add(e, "MTAG_MODE", "%s", mode);
	if (sync) {
		add(e, "MTAG_ADDR", "0x%016" PRIx64, f->addr);
		add(e, "MTAG_PTR_TAG", "0x%x", f->ptr_tag);
		add(e, "MTAG_MEM_TAG", "%s", memtag);
		add(e, "MTAG_PC", "0x%" PRIx64, f->pc);
		if (have_object)
			add(e, "MTAG_PC_OBJECT", "%s", object);
		if (bug)
			add_bug(e, bug, mte_cause_name(ci.cause));
		else if (bug_why)
			add(e, "MTAG_BUG_NOTE", "%s", bug_why);
		free(bug);
	}
	if (f->has_tags) {
		mte_fault_tags_str(f, tags, sizeof(tags));
		add(e, "MTAG_TAGS", "%s", tags);
	}
	add(e, "MTAG_CAUSE", "%s", mte_cause_name(ci.cause));
	add(e, "MTAG_CAUSE_CONFIDENCE", "%s", mte_confidence_name(ci.confidence));
	if (ci.text[0])
		add(e, "MTAG_CAUSE_TEXT", "%s", ci.text);
	if (ci.alloc_min_size)
		add(e, "MTAG_ALLOC_MIN_SIZE", "%" PRIu64, ci.alloc_min_size);
	if (ci.cause == MTE_CAUSE_OVERFLOW || ci.cause == MTE_CAUSE_UNDERFLOW || ci.distance)
		add(e, "MTAG_DISTANCE", "%" PRIu64, ci.distance);
	add_origin(e, k, line);
}

/* The kernel's "N fault reports suppressed for ..." line: the unit by the
 * same rules as a fault line's (a user's delegated cgroups are charged to
 * user@UID.service), none for a cgroup known only by its id. */
static void build_suppressed(const struct faultd_kmsg *k, const char *line,
			     const struct mte_suppressed *sp, struct faultd_entry *e)
{
	char unit_buf[256], user_unit_buf[256];
	const char *unit = sp->by_id ? NULL : cgroup_system_unit(sp->cgroup, unit_buf, sizeof(unit_buf));
	const char *user_unit = unit ? cgroup_user_unit(sp->cgroup, user_unit_buf, sizeof(user_unit_buf)) : NULL;
	const char *s = sp->count == 1 ? "" : "s";
	char *msg;

	if (sp->by_id) {
		msg = xasprintf("%" PRIu64 " tag-check fault report%s suppressed by the kernel's rate limit for cgroup id %"
				PRIu64 " (gone or evicted: no unit known)", sp->count, s, sp->cgroup_id);
	} else {
		size_t l = strlen(sp->cgroup);
		char *ecg = xmalloc(4 * l + 1);

		/* A cgroup name is a user's choice (delegation): escaped. */
		cescape(sp->cgroup, ecg, 4 * l + 1);
		msg = xasprintf("%s%s%" PRIu64 " tag-check fault report%s suppressed by the kernel's rate limit (cgroup %s%s)",
				unit ? unit : "", unit ? ": " : "", sp->count, s, ecg,
				unit ? "" : ", no unit");
		free(ecg);
	}
	add(e, "MESSAGE", "%s", msg);
	free(msg);
	add(e, "MESSAGE_ID", "%s", MSGID_FAULT_SUPPRESSED);
	add(e, "PRIORITY", "%d", 4);
	add(e, "SYSLOG_IDENTIFIER", IDENT);
	add(e, "MTAG_SUPPRESSED", "%" PRIu64, sp->count);
	add_units(e, unit, user_unit);
	if (sp->by_id)
		add(e, "MTAG_CGROUP_ID", "%" PRIu64, sp->cgroup_id);
	else
		add(e, "MTAG_CGROUP", "%s", sp->cgroup);
	add_origin(e, k, line);
}

enum faultd_kind faultd_build(const char *proc, const struct faultd_kmsg *k,
			      struct faultd_entry *e)
{
	struct mte_fault f;
	struct mte_suppressed sp;
	size_t len = k->len;
	char *line;
	int r, rs = 0;

	faultd_entry_free(e);
	while (len && (k->text[len - 1] == '\n' || k->text[len - 1] == '\r'))
		len--;
	r = mte_fault_parse(k->text, len, &f);
	if (r == 0)
		rs = mte_suppressed_parse(k->text, len, &sp);
	if (r == 0 && rs == 0)
		return FAULTD_NONE;
	line = xstrndup(k->text, len);
	/* A NUL in the middle would cut the journal field short. */
	for (size_t i = 0; i < len; i++)
		if (line[i] == '\0')
			line[i] = '?';
	if (r == 1) {
		build_fault(proc, k, line, &f, e);
		free(line);
		return FAULTD_FAULT;
	}
	if (rs == 1) {
		build_suppressed(k, line, &sp, e);
		free(line);
		return FAULTD_SUPPRESSED;
	}
	{
		char *eline = xmalloc(4 * len + 1);

		add(e, "MESSAGE", "unreadable tag-check fault%s line from the kernel (%s; see MTAG_KERNEL_MESSAGE): %s",
		    rs ? " count" : "", rs ? "faults happened and were not reported" : "a fault happened",
		    cescape(line, eline, 4 * len + 1));
		free(eline);
	}
	add(e, "MESSAGE_ID", "%s", MSGID_FAULT_UNPARSED);
	add(e, "PRIORITY", "%d", 3);
	add(e, "SYSLOG_IDENTIFIER", IDENT);
	add_origin(e, k, line);
	free(line);
	return FAULTD_UNPARSED;
}

/* --- state ------------------------------------------------------------- */

char *faultd_state_dir(const char *dir_opt)
{
	const char *env = getenv("STATE_DIRECTORY");

	if (dir_opt)
		return xstrdup(dir_opt);
	if (env && *env)
		return xstrndup(env, strcspn(env, ":"));
	return xstrdup("/var/lib/mtag");
}

static char what_buf[4096];

static const char *what_path(const char *dir, const char *name)
{
	snprintf(what_buf, sizeof(what_buf), "%s/%s", dir, name);
	return what_buf;
}

int faultd_cursor_load(const char *dir, char **cursor, const char **what)
{
	char *buf;
	size_t len;
	int fd, err;

	*cursor = NULL;
	*what = what_path(dir, "cursor");
	fd = open(*what, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	err = read_fd_all(fd, CURSOR_MAX - 1, &buf, &len);
	close(fd);
	if (err < 0)
		return err;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	if (len == 0 || strlen(buf) != len) {
		free(buf);
		return len == 0 ? 0 : -EBADMSG;
	}
	*cursor = buf;
	return 1;
}

int faultd_cursor_save(const char *dir, const char *cursor, bool durable, const char **what)
{
	char *text = xasprintf("%s\n", cursor);
	int err;

	*what = what_path(dir, "cursor");
	err = write_file_replace(*what, text, strlen(text), 0644, durable);
	free(text);
	return err;
}

bool faultd_cursor_boot(const char *cursor, char *boot, size_t len)
{
	const char *p = cursor;

	while (p && *p) {
		size_t n = strcspn(p, ";");

		if (n == 34 && p[0] == 'b' && p[1] == '=' && len >= 33) {
			memcpy(boot, p + 2, 32);
			boot[32] = '\0';
			return strspn(boot, "0123456789abcdef") == 32;
		}
		p += n;
		if (*p == ';')
			p++;
	}
	return false;
}
