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
#include <syslog.h>
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
#include "systemd-time.h"
#include "util.h"

#define EM_DASH "\xe2\x80\x94"
#define STATUS_MAX (64 * 1024)
#define CURSOR_MAX 4096

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

void faultd_hhmmss(uint64_t usec, char *buf, size_t len)
{
	timestamp_format_local(usec, "%H:%M:%S", "(unknown time)", buf, len);
}

const char *faultd_record_unit(const struct faultd_record *r)
{
	return r->unit[0] ? r->unit : NULL;
}

void faultd_record_free(struct faultd_record *r)
{
	free(r->line);
	free(r->cursor);
	free(r->bug);
	memset(r, 0, sizeof(*r));
}

/* --- deciding ------------------------------------------------------------ */

/* The unit and user unit of CGROUP by systemd's rules: a unit of a user's
 * own manager is never taken for a system unit of the same name (see
 * cgunit.h). */
static void decide_units(struct faultd_record *r, const char *cgroup)
{
	char unit[256], user_unit[256];
	const char *u = cgroup_system_unit(cgroup, unit, sizeof(unit));
	const char *uu = u ? cgroup_user_unit(cgroup, user_unit, sizeof(user_unit)) : NULL;

	snprintf(r->unit, sizeof(r->unit), "%s", u ? u : "");
	snprintf(r->user_unit, sizeof(r->user_unit), "%s", uu ? uu : "");
}

static void decide_fault(const char *proc, struct faultd_record *r)
{
	const struct mte_fault *f = &r->f;
	pid_t pid = f->pid ? f->pid : f->tid; /* /proc/TID works for a thread too */

	decide_units(r, f->cgroup);
	mte_classify(f, NULL, &r->ci);
	if (proc && pid > 0 && f->tid > 0 && same_thread(proc, pid, f->tid, f->comm)) {
		const char *mode = thread_mode(proc, pid, f->tid);

		if (mode)
			snprintf(r->mode, sizeof(r->mode), "%s", mode);
		if (f->kind == MTE_FAULT_SYNC && !pc_object(proc, pid, f->pc, r->object, sizeof(r->object)))
			r->object[0] = '\0';
		/* The bug's identity (bugid.h): the pc's object, or for an
		 * async fault (no pc) the main executable; the thread checked
		 * again after it, as the PID may have been reused meanwhile. */
		if (r->object[0] || f->kind == MTE_FAULT_ASYNC) {
			int got;

			r->bug = xmalloc(sizeof(*r->bug));
			got = f->kind == MTE_FAULT_ASYNC ? bug_object_of_exe(proc, pid, r->bug, &r->bug_why) :
							   bug_object_of_pc(proc, pid, f->pc, r->bug, &r->bug_why);
			if (got != 1 || !same_thread(proc, pid, f->tid, f->comm)) {
				if (!r->bug_why)
					r->bug_why = "the thread is gone (its PID may be reused)";
				free(r->bug);
				r->bug = NULL;
			} else if (f->kind == MTE_FAULT_ASYNC) {
				bug_async_signature(r->bug->build_id, r->bug->package, r->bug->version,
						    r->bug->path, r->signature);
			} else {
				bug_signature(r->bug->build_id, r->bug->package, r->bug->version, r->bug->path,
					      mte_cause_name(r->ci.cause), r->bug->offset, r->signature);
			}
		}
	}
}

enum faultd_kind faultd_decide(const char *proc, const struct faultd_kmsg *k,
			       struct faultd_record *r)
{
	size_t len = k->len;
	int pf, ps = 0;

	faultd_record_free(r);
	while (len && (k->text[len - 1] == '\n' || k->text[len - 1] == '\r'))
		len--;
	pf = mte_fault_parse(k->text, len, &r->f);
	if (pf == 0)
		ps = mte_suppressed_parse(k->text, len, &r->sp);
	if (pf == 0 && ps == 0)
		return r->kind = FAULTD_NONE;
	r->line = xstrndup(k->text, len);
	/* A NUL in the middle would cut the journal field short. */
	for (size_t i = 0; i < len; i++)
		if (r->line[i] == '\0')
			r->line[i] = '?';
	r->cursor = k->cursor ? xstrdup(k->cursor) : NULL;
	r->realtime_usec = k->realtime_usec;
	if (pf == 1) {
		decide_fault(proc, r);
		return r->kind = FAULTD_FAULT;
	}
	if (ps == 1) {
		/* The unit by the same rules as a fault line's (a user's
		 * delegated cgroups are charged to user@UID.service), none for
		 * a cgroup known only by its id. */
		if (!r->sp.by_id)
			decide_units(r, r->sp.cgroup);
		return r->kind = FAULTD_SUPPRESSED;
	}
	r->count_line = ps != 0;
	return r->kind = FAULTD_UNPARSED;
}

/* --- the entry: the one place the fields are written -------------------- */

/* The bug's identity (bugid.h): MTAG_OBJECT (escaped: a path is any
 * bytes its owner chose), MTAG_OFFSET, MTAG_BUILD_ID, MTAG_PACKAGE and
 * MTAG_PACKAGE_VERSION, MTAG_SIGNATURE, and MTAG_BUG_NOTE for what is
 * missing.  An async fault (SYNC false) has no pc: the main executable
 * is named, no offset, and the signature is the coarse one
 * (MTAG_SIGNATURE_KIND=coarse). */
static void add_bug(struct log_struct *e, const struct faultd_record *r, bool sync)
{
	const struct bug_object *b = r->bug;
	size_t l = strlen(b->path);
	char *epath = xmalloc(4 * l + 1);

	log_struct_add(e, "MTAG_OBJECT", "%s", cescape(b->path, epath, 4 * l + 1));
	free(epath);
	if (sync)
		log_struct_add(e, "MTAG_OFFSET", "0x%" PRIx64, b->offset);
	if (b->build_id[0])
		log_struct_add(e, "MTAG_BUILD_ID", "%s", b->build_id);
	if (b->package[0]) {
		log_struct_add(e, "MTAG_PACKAGE", "%s", b->package);
		log_struct_add(e, "MTAG_PACKAGE_VERSION", "%s", b->version);
	}
	if (r->signature[0]) {
		log_struct_add(e, "MTAG_SIGNATURE", "%s", r->signature);
		if (!sync)
			log_struct_add(e, "MTAG_SIGNATURE_KIND", "coarse");
	}
	if (b->note[0])
		log_struct_add(e, "MTAG_BUG_NOTE", "%s", b->note);
}

/* The unit fields of an entry. */
static void add_units(struct log_struct *e, const struct faultd_record *r)
{
	if (r->unit[0]) {
		log_struct_add(e, "MTAG_UNIT", "%s", r->unit);
		/* "journalctl -u UNIT" shows entries with this field from
		 * UID 0, as it does systemd-coredump's. */
		log_struct_add(e, "OBJECT_SYSTEMD_UNIT", "%s", r->unit);
	}
	if (r->user_unit[0]) {
		log_struct_add(e, "MTAG_USER_UNIT", "%s", r->user_unit);
		log_struct_add(e, "OBJECT_SYSTEMD_USER_UNIT", "%s", r->user_unit);
	}
}

static void add_origin(struct log_struct *e, const struct faultd_record *r)
{
	log_struct_add(e, "MTAG_KERNEL_MESSAGE", "%s", r->line);
	if (r->cursor)
		log_struct_add(e, "MTAG_KERNEL_CURSOR", "%s", r->cursor);
	if (r->realtime_usec)
		log_struct_add(e, "MTAG_KERNEL_USEC", "%" PRIu64, r->realtime_usec);
}

/* What MESSAGE says of the upgraded start after its fault text. */
static char *upgrade_text(const struct faultd_record *r)
{
	char when[64], span[64];

	switch (r->upgrade) {
	case FAULTD_UPGRADE_NEXT:
		duration_format(r->upgrade_ns, span, sizeof(span));
		return xasprintf("; the next start of %s runs in sync for %s (upgrade=)", r->unit, span);
	case FAULTD_UPGRADE_LIMIT:
		faultd_hhmmss(r->grant.granted_usec, when, sizeof(when));
		return xasprintf("; no upgraded start: the one of this boot was used at %s", when);
	case FAULTD_UPGRADED:
		faultd_hhmmss(r->grant.fault_usec, when, sizeof(when));
		return xasprintf("; in the upgraded start after the async fault at %s", when);
	case FAULTD_UPGRADE_ERROR:
	case FAULTD_UPGRADE_NONE:
		break;
	}
	return xstrdup("");
}

static void add_upgrade(struct log_struct *e, const struct faultd_record *r)
{
	switch (r->upgrade) {
	case FAULTD_UPGRADE_NEXT:
		log_struct_add(e, "MTAG_UPGRADE_NEXT", "yes");
		log_struct_add(e, "MTAG_UPGRADE_NSEC", "%" PRIu64, r->upgrade_ns);
		break;
	case FAULTD_UPGRADE_LIMIT:
		log_struct_add(e, "MTAG_UPGRADE_NEXT", "limit");
		break;
	case FAULTD_UPGRADE_ERROR:
		log_struct_add(e, "MTAG_UPGRADE_NEXT", "error");
		break;
	case FAULTD_UPGRADED:
		log_struct_add(e, "MTAG_UPGRADED_FROM", "%s", r->grant.fault_cursor);
		log_struct_add(e, "MTAG_UPGRADED_FROM_USEC", "%" PRIu64, r->grant.fault_usec);
		log_struct_add(e, "MTAG_UPGRADE_INVOCATION", "%s", r->grant.invocation);
		break;
	case FAULTD_UPGRADE_NONE:
		break;
	}
}

static void entry_fault(const struct faultd_record *r, struct log_struct *e)
{
	const struct mte_fault *f = &r->f;
	const struct mte_cause_info *ci = &r->ci;
	const char *unit = faultd_record_unit(r), *mode = r->mode;
	char memtag[16], tags[32], who[320], *msg, *up = upgrade_text(r);
	pid_t pid = f->pid ? f->pid : f->tid;
	bool sync = f->kind == MTE_FAULT_SYNC;

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
		bool conf = ci->cause != MTE_CAUSE_UNKNOWN && ci->confidence != MTE_CONF_NONE;

		msg = xasprintf("%s%s%s sync tag-check fault at 0x%016" PRIx64
				" (pointer tag 0x%x, memory tag %s): %s%s%s " EM_DASH " %s%s",
				unit ? unit : "", unit ? ": " : "", who, f->addr, f->ptr_tag,
				memtag, cause_phrase(ci->cause), conf ? ", " : "",
				conf ? mte_confidence_name(ci->confidence) : "",
				action_text(f->report), up);
	} else {
		msg = xasprintf("%s%s%s async tag-check fault (no address in async mode, cause unknown) "
				EM_DASH " %s%s",
				unit ? unit : "", unit ? ": " : "", who, action_text(f->report), up);
	}
	free(up);

	log_struct_begin(e, f->report == MTE_FAULT_SIGNAL ? LOG_ERR : LOG_WARNING, MSGID_FAULT, "%s", msg);
	free(msg);
	log_struct_add(e, "MTAG_FAULT_KIND", "%s", sync ? "sync" : "async");
	log_struct_add(e, "MTAG_FAULT_ACTION", "%s", action_name(f->report));
	add_units(e, r);
	if (f->cgroup[0])
		log_struct_add(e, "MTAG_CGROUP", "%s", f->cgroup);
	if (f->pid)
		log_struct_add(e, "MTAG_PID", "%d", (int)f->pid);
	log_struct_add(e, "MTAG_TID", "%d", (int)f->tid);
	log_struct_add(e, "MTAG_COMM", "%s", f->comm);
	/* MTE_TCF shows the mode asked for; in the upgraded start the thread
	 * checked in sync (the kernel's timed upgrade). */
	if (r->upgrade == FAULTD_UPGRADED && strcmp(mode, "async") == 0)
		mode = "sync";
	if (mode[0])
		log_struct_add(e, "MTAG_MODE", "%s", mode);
	if (sync) {
		log_struct_add(e, "MTAG_ADDR", "0x%016" PRIx64, f->addr);
		log_struct_add(e, "MTAG_PTR_TAG", "0x%x", f->ptr_tag);
		log_struct_add(e, "MTAG_MEM_TAG", "%s", memtag);
		log_struct_add(e, "MTAG_PC", "0x%" PRIx64, f->pc);
		if (r->object[0])
			log_struct_add(e, "MTAG_PC_OBJECT", "%s", r->object);
	}
	if (r->bug)
		add_bug(e, r, sync);
	else if (r->bug_why)
		log_struct_add(e, "MTAG_BUG_NOTE", "%s", r->bug_why);
	if (f->has_tags) {
		mte_fault_tags_str(f, tags, sizeof(tags));
		log_struct_add(e, "MTAG_TAGS", "%s", tags);
	}
	log_struct_add(e, "MTAG_CAUSE", "%s", mte_cause_name(ci->cause));
	log_struct_add(e, "MTAG_CAUSE_CONFIDENCE", "%s", mte_confidence_name(ci->confidence));
	if (ci->text[0])
		log_struct_add(e, "MTAG_CAUSE_TEXT", "%s", ci->text);
	if (ci->alloc_min_size)
		log_struct_add(e, "MTAG_ALLOC_MIN_SIZE", "%" PRIu64, ci->alloc_min_size);
	if (ci->cause == MTE_CAUSE_OVERFLOW || ci->cause == MTE_CAUSE_UNDERFLOW || ci->distance)
		log_struct_add(e, "MTAG_DISTANCE", "%" PRIu64, ci->distance);
	add_origin(e, r);
	add_upgrade(e, r);
}

bool faultd_pending_of(const struct faultd_record *r, struct faultd_pending *p)
{
	const struct mte_fault *f = &r->f;

	if (r->kind != FAULTD_FAULT || f->kind != MTE_FAULT_SYNC || f->report != MTE_FAULT_SIGNAL ||
	    !r->signature[0])
		return false;
	memset(p, 0, sizeof(*p));
	p->pid = f->pid ? f->pid : f->tid;
	p->tid = f->tid;
	snprintf(p->comm, sizeof(p->comm), "%s", f->comm);
	snprintf(p->unit, sizeof(p->unit), "%s", r->unit);
	snprintf(p->signature, sizeof(p->signature), "%s", r->signature);
	snprintf(p->cursor, sizeof(p->cursor), "%s", r->cursor ? r->cursor : "");
	p->usec = r->realtime_usec;
	return true;
}

void faultd_frames_entry(const struct faultd_pending *p, const struct bug_frame *fr, int n,
			 const char *why, struct log_struct *e)
{
	char frames[(BUG_CALLERS + 1) * (2 * BUG_BUILD_ID_MAX + 24)], stack[BUG_SIGNATURE_LEN + 1] = "";
	char ecomm[4 * sizeof(p->comm) + 1];

	cescape(p->comm, ecomm, sizeof(ecomm));
	if (n > 0) {
		bug_frames_text(fr, (size_t)n, frames, sizeof(frames));
		bug_stack_signature(p->signature, fr, (size_t)n, stack, NULL);
		log_struct_begin(e, LOG_INFO, MSGID_FAULT_FRAMES,
				 "%s%s%s[%d]: the top frames of tag-check fault %s, from its core: %s",
				 p->unit, p->unit[0] ? ": " : "", ecomm, (int)p->pid, p->signature, frames);
		log_struct_add(e, "MTAG_FRAMES", "%s", frames);
		if (stack[0])
			log_struct_add(e, "MTAG_STACK_SIGNATURE", "%s", stack);
	} else {
		log_struct_begin(e, LOG_INFO, MSGID_FAULT_FRAMES,
				 "%s%s%s[%d]: no frames of tag-check fault %s from its core: %s",
				 p->unit, p->unit[0] ? ": " : "", ecomm, (int)p->pid, p->signature,
				 why ? why : "unknown");
		log_struct_add(e, "MTAG_BUG_NOTE", "%s", why ? why : "unknown");
	}
	log_struct_add(e, "MTAG_SIGNATURE", "%s", p->signature);
	if (p->unit[0])
		log_struct_add(e, "MTAG_UNIT", "%s", p->unit);
	log_struct_add(e, "MTAG_PID", "%d", (int)p->pid);
	log_struct_add(e, "MTAG_TID", "%d", (int)p->tid);
	log_struct_add(e, "MTAG_COMM", "%s", p->comm);
	if (p->cursor[0])
		log_struct_add(e, "MTAG_KERNEL_CURSOR", "%s", p->cursor);
}

/* The kernel's "N fault reports suppressed for ..." line. */
static void entry_suppressed(const struct faultd_record *r, struct log_struct *e)
{
	const struct mte_suppressed *sp = &r->sp;
	const char *unit = faultd_record_unit(r);
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
	log_struct_begin(e, LOG_WARNING, MSGID_FAULT_SUPPRESSED, "%s", msg);
	free(msg);
	log_struct_add(e, "MTAG_SUPPRESSED", "%" PRIu64, sp->count);
	add_units(e, r);
	if (sp->by_id)
		log_struct_add(e, "MTAG_CGROUP_ID", "%" PRIu64, sp->cgroup_id);
	else
		log_struct_add(e, "MTAG_CGROUP", "%s", sp->cgroup);
	add_origin(e, r);
}

static void entry_unparsed(const struct faultd_record *r, struct log_struct *e)
{
	size_t len = strlen(r->line);
	char *eline = xmalloc(4 * len + 1);

	log_struct_begin(e, LOG_ERR, MSGID_FAULT_UNPARSED,
			 "unreadable tag-check fault%s line from the kernel (%s; see MTAG_KERNEL_MESSAGE): %s",
			 r->count_line ? " count" : "",
			 r->count_line ? "faults happened and were not reported" : "a fault happened",
			 cescape(r->line, eline, 4 * len + 1));
	free(eline);
	add_origin(e, r);
}

void faultd_entry(const struct faultd_record *r, struct log_struct *e)
{
	switch (r->kind) {
	case FAULTD_FAULT:
		entry_fault(r, e);
		break;
	case FAULTD_SUPPRESSED:
		entry_suppressed(r, e);
		break;
	case FAULTD_UNPARSED:
		entry_unparsed(r, e);
		break;
	case FAULTD_NONE:
		log_struct_free(e);
		break;
	}
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
