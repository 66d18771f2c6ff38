/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtag-faultd -- one structured journal entry per MTE tag-check fault.
 *
 *   mtag-faultd [--state-dir DIR]
 *   mtag-faultd --from-stdin [--proc DIR]
 *
 * Follows the kernel's messages in the system journal (_TRANSPORT=kernel,
 * this boot), and for every tag-check fault line (faultline.h) writes an
 * entry with MESSAGE_ID=MSGID_FAULT and the fields of faultfields.h; a line
 * that starts like one but does not parse gets an MSGID_FAULT_UNPARSED
 * entry; a "suppressed" line of the kernel's rate limit an
 * MSGID_FAULT_SUPPRESSED entry.  It follows systemd-coredump's entries
 * too: the core of a process a sync fault killed gives an
 * MSGID_FAULT_FRAMES entry, its top frames (coreframes.h).  The cursor of
 * the last kernel entry
 * handled and the counts of what was handled up to it (faultcount.h) are
 * kept in $STATE_DIRECTORY/state, one file written atomically, so that a
 * restart neither repeats nor skips a fault, nor counts one twice.  See
 * mtag-faultd(8).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "bugid.h"
#include "conffiles.h"
#include "coreframes.h"
#include "coreload.h"
#include "trust.h"
#include "faultcount.h"
#include "util.h"
#include "systemd-time.h"
#include "faultd.h"
#include "log.h"
#include "main-func.h"
#include "policy.h"
#include "upgrade.h"
#include "faultfields.h"

#ifndef MTAG_VERSION
#define MTAG_VERSION "unknown"
#endif

#define PROG "mtag-faultd"

struct opts {
	char *state_dir;
	const char *proc;
	const char *journal_dir;  /* tests: a directory of journal files */
	bool from_stdin;
	bool print;               /* tests: entries to stdout, not the journal */
	const char *upgrade_dir;  /* NULL: /run/mtag (upgrade.h) */
	struct conf_opts conf;    /* the policy (tests: --root, --config) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [--state-dir DIR]\n"
		"       " PROG " --from-stdin [--proc DIR]\n"
		"\n"
		"Write one structured journal entry (MESSAGE_ID=5fda042e18d64e2e9d913704e87926cb)\n"
		"per MTE tag-check fault the kernel logs.  Run by mtag-faultd.service.\n"
		"\n"
		"      --state-dir DIR    keep the journal cursor and the counts in DIR/state\n"
		"                         (default\n"
		"                         $STATE_DIRECTORY, else /var/lib/mtag)\n"
		"      --from-stdin       read kernel lines from standard input and print the\n"
		"                         entries as FIELD=VALUE blocks instead of writing them\n"
		"      --proc DIR         read the faulting processes' maps and status under\n"
		"                         DIR instead of /proc\n"
		"      --dpkg-admindir DIR\n"
		"                         the dpkg database that names a faulting object's\n"
		"                         package (default /var/lib/dpkg)\n"
		"      --upgrade-dir DIR  the upgraded start's records in DIR/upgrade (default\n"
		"                         /run/mtag)\n"
		"      --root DIR, --config FILE\n"
		"                         the policy (upgrade=) under DIR, or only FILE\n"
		"  -h, --help             show this help\n"
		"      --version          show the version\n"
		"\n"
		"See mtag-faultd(8) and mtagctl(8).\n");
}

/* --- --from-stdin -------------------------------------------------------- */

static int run_stdin(const struct opts *o)
{
	struct faultd_record r = { 0 };
	struct log_struct e = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		struct faultd_kmsg k = { .text = line, .len = (size_t)n };

		if (faultd_decide(o->proc, &k, &r) != FAULTD_NONE) {
			faultd_entry(&r, &e);
			log_struct_print(stdout, &e);
		}
	}
	faultd_record_free(&r);
	log_struct_free(&e);
	free(line);
	if (ferror(stdin)) {
		log_msg(LOG_ERR, NULL, "reading standard input: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	if (fflush(stdout) != 0) {
		log_msg(LOG_ERR, NULL, "writing standard output: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* --- the journal --------------------------------------------------------- */

/* The policy, for upgrade= (upgrade_step()): read once, and again only
 * when conf_stamp() says a file changed.  A flood of fault lines (a user
 * with many cgroups, issue 32) then costs a few stat()s a line, not a
 * parse; an edit is seen at the next line, with no SIGHUP or
 * daemon-reload to forget, and no inotify watch on directories that may
 * not exist yet (/run/mtag/policy.d). */
struct policy_cache {
	struct policy p;
	uint64_t stamp;
	bool loaded;
	unsigned long loads;
};

static const struct policy *policy_current(struct policy_cache *c, const struct conf_opts *o)
{
	/* Taken before the read: a change during it shows at the next. */
	uint64_t stamp = conf_stamp(o);
	unsigned files;

	if (c->loaded && stamp == c->stamp)
		return &c->p;
	if (c->loaded)
		policy_free(&c->p);
	policy_init(&c->p);
	files = conf_load(&c->p, o);
	c->stamp = stamp;
	c->loaded = true;
	c->loads++;
	log_msg(LOG_INFO, NULL, "%sread the policy for upgrade=: %u file%s, %zu entr%s, %zu error%s",
		c->loads == 1 ? "" : "a policy file changed: ", files, files == 1 ? "" : "s",
		c->p.n_entries, c->p.n_entries == 1 ? "y" : "ies",
		policy_error_count(&c->p), policy_error_count(&c->p) == 1 ? "" : "s");
	return &c->p;
}

#define PENDING_MAX 32
/* A core bigger than this is not read for its frames (mtag-faultd holds
 * it in memory while libdw unwinds it). */
#define FAULTD_CORE_MAX ((uint64_t)256 << 20)

struct follow {
	const struct opts *o;
	struct policy_cache policy;
	sd_journal *j;
	struct faultd_record rec;  /* the kernel line handled now */
	/* The last sync faults that killed their process: when
	 * systemd-coredump's entry for one comes, its core's frames. */
	struct faultd_pending pending[PENDING_MAX];
	size_t n_pending;
	struct log_struct e;       /* and its entry */
	/* The cursor of the last kernel entry handled and the counts up to
	 * it: what DIR/state holds once saved. */
	struct faultcount count;
	char *state_path;
	bool cursor_dirty;     /* not yet in the state file */
	bool legacy_cursor;    /* DIR/cursor of an older mtag-faultd to remove */
	bool check_written;    /* the first fault line after a saved cursor */
	unsigned long faults, unparsed, already;
	unsigned long kill_after; /* tests: SIGKILL after this many sends */
};

/* The cursor and the counts together, one rename: a line is counted in
 * the file if and only if the file's cursor is at or past it. */
static int save_cursor(struct follow *s, bool durable)
{
	int r;

	if (!s->count.cursor || !s->cursor_dirty)
		return 0;
	r = faultcount_save(s->state_path, &s->count, durable);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot write %s: %s", s->state_path, strerror(-r));
		return r;
	}
	s->cursor_dirty = false;
	if (s->legacy_cursor) {
		char *old;

		if (asprintf(&old, "%s/cursor", s->o->state_dir) < 0)
			abort();
		if (unlink(old) < 0 && errno != ENOENT)
			log_msg(LOG_WARNING, NULL, "cannot remove %s (now in %s): %s", old, s->state_path,
			    strerror(errno));
		free(old);
		s->legacy_cursor = false;
	}
	return 0;
}

/* Count what the kernel line of E (KIND) says, whether or not its entry
 * is written now (it may have been before a crash: the state file's
 * counts stop where its cursor does, so the line is not counted yet). */
static void count_entry(struct follow *s, enum faultd_kind kind)
{
	const struct faultd_record *r = &s->rec;

	switch (kind) {
	case FAULTD_FAULT:
		faultcount_add_fault(&s->count, faultd_record_unit(r), mte_cause_name(r->ci.cause));
		break;
	case FAULTD_SUPPRESSED:
		faultcount_add_suppressed(&s->count, faultd_record_unit(r), r->sp.count);
		break;
	case FAULTD_UNPARSED:
		s->count.unparsed++;
		break;
	case FAULTD_NONE:
		break;
	}
}

/* The entry of the line handled, written once from its record. */
static int send_entry(struct follow *s)
{
	faultd_entry(&s->rec, &s->e);
	if (s->o->print) {
		log_struct_print(stdout, &s->e);
		fflush(stdout);
		return 0;
	}
	return log_struct_send(&s->e);
}

/*
 * The upgraded start (upgrade.h), decided into the record FR before its
 * entry is written (faultd_entry()).  A fault of a system unit whose
 * policy is async with upgrade=: an async fault that killed a process (a
 * signal, not report mode) leaves DIR/upgrade/UNIT.fault for the unit's
 * next start, unless the once-per-boot upgrade was used; a sync fault
 * during an upgraded start names the async fault that caused it.  Only a
 * kernel line (KERNEL: SYSLOG_FACILITY 0, which a process writing to
 * /dev/kmsg cannot give its line) writes a record, and only faultd (root)
 * can write in DIR/upgrade.
 */
static void upgrade_step(struct follow *s, bool kernel, struct faultd_record *fr)
{
	const struct opts *o = s->o;
	const char *unit = faultd_record_unit(fr);
	const struct policy_entry *pe;
	const struct policy *p;
	struct upgrade_rec r;
	char *path = NULL;
	uint64_t window;

	if (!kernel || !unit || fr->user_unit[0] || fr->f.report != MTE_FAULT_SIGNAL)
		return;
	p = policy_current(&s->policy, &o->conf);
	pe = policy_names_unit(p, unit) ? policy_lookup(p, unit) : NULL;
	window = pe && pe->mode == MTAG_MODE_ASYNC ? pe->upgrade_ns : 0;
	if (!window)
		return;

	if (fr->f.kind == MTE_FAULT_ASYNC) {
		const char *why;
		char *who;
		int rc;

		memset(&r, 0, sizeof(r));
		path = upgrade_path(o->upgrade_dir, "upgrade", unit, ".used");
		if (upgrade_read(path, &r) > 0) {
			fr->upgrade = FAULTD_UPGRADE_LIMIT;
			fr->grant = r;
			goto out;
		}
		free(path);
		path = upgrade_path(o->upgrade_dir, "upgrade", unit, ".fault");
		memset(&r, 0, sizeof(r));
		r.fault_usec = fr->realtime_usec;
		snprintf(r.fault_cursor, sizeof(r.fault_cursor), "%s", fr->cursor ? fr->cursor : "");
		who = xasprintf("%s[%d]", fr->f.comm, (int)fr->f.tid);
		snprintf(r.fault_comm, sizeof(r.fault_comm), "%s", who);
		free(who);
		rc = upgrade_dir_ensure(o->upgrade_dir, "upgrade", 0700, &why);
		if (rc == 0)
			rc = upgrade_write(path, &r, 0600);
		else
			log_msg(LOG_ERR, NULL, "%s/upgrade: %s: %s", o->upgrade_dir ? o->upgrade_dir : UPGRADE_BASE_DIR,
			    why, strerror(-rc));
		if (rc < 0) {
			log_msg(LOG_ERR, NULL, "cannot record the async fault of %s for an upgraded start: %s: %s",
			    unit, path, strerror(-rc));
			fr->upgrade = FAULTD_UPGRADE_ERROR;
			goto out;
		}
		fr->upgrade = FAULTD_UPGRADE_NEXT;
		fr->upgrade_ns = window;
	} else {
		path = upgrade_path(o->upgrade_dir, "upgrade-grant", unit, NULL);
		if (upgrade_read(path, &r) <= 0 || !r.granted_usec || !fr->realtime_usec ||
		    fr->realtime_usec < r.granted_usec ||
		    fr->realtime_usec > r.granted_usec + window / 1000 + UPGRADE_SLACK_USEC)
			goto out;
		fr->upgrade = FAULTD_UPGRADED;
		fr->grant = r;
	}
out:
	free(path);
}

/* Did an earlier run of mtag-faultd write the entry for kernel entry
 * CURSOR?  It writes the entry, then saves the cursor: a crash (SIGKILL,
 * the OOM killer, a power cut) between the two leaves the cursor one
 * fault line behind, and the first fault (or suppressed) line after it
 * may have its entry already.  Only root's entries count (anyone may log MTAG_KERNEL_CURSOR=).
 * Returns 1, 0, or -errno (then the entry is written: a duplicate rather
 * than a loss). */
static int entry_written(const struct follow *s, const char *cursor)
{
	sd_journal *j = NULL;
	char *m;
	int r;

	if (s->o->journal_dir)
		r = sd_journal_open_directory(&j, s->o->journal_dir, 0);
	else
		r = sd_journal_open(&j, SD_JOURNAL_SYSTEM);
	if (r < 0)
		return r;
	if (asprintf(&m, "MTAG_KERNEL_CURSOR=%s", cursor) < 0) {
		sd_journal_close(j);
		return -ENOMEM;
	}
	if ((r = sd_journal_add_match(j, m, 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "_UID=0", 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "MESSAGE_ID=" MSGID_FAULT, 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "MESSAGE_ID=" MSGID_FAULT_UNPARSED, 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "MESSAGE_ID=" MSGID_FAULT_SUPPRESSED, 0)) >= 0)
		r = sd_journal_next(j);
	free(m);
	sd_journal_close(j);
	return r < 0 ? r : r > 0;
}

static int entry_get_data(void *j, const char *field, const void **data, size_t *len)
{
	return sd_journal_get_data(j, field, data, len);
}

/* Is the entry J is on systemd-coredump's entry of a core? */
static bool is_coredump(sd_journal *j)
{
	static const char want[] = "MESSAGE_ID=" MSGID_COREDUMP;
	const void *d;
	size_t len;

	return sd_journal_get_data(j, "MESSAGE_ID", &d, &len) >= 0 && len == strlen(want) &&
	       memcmp(d, want, len) == 0;
}

/* The core of systemd-coredump's entry J is on, if it is that of a
 * pending fault (S->pending): its top frames as an MSGID_FAULT_FRAMES
 * entry.  Only an entry systemd-coredump wrote counts (trust.h), and its
 * core only from the coredump directory or the entry itself
 * (coreload.h).  0, or -errno when the entry cannot be written. */
static int handle_core(struct follow *s)
{
	struct jentry *fc = xmalloc(sizeof(*fc));
	struct bug_frame fr[BUG_CALLERS + 1];
	struct faultd_pending p;
	const char *v, *why = NULL;
	char file[600] = "", lwhy[256];
	const void *d = NULL;
	void *data = NULL;
	size_t i, size = 0, len = 0;
	uint64_t usec = 0;
	int n, r;

	fc->get_data = entry_get_data;
	fc->j = s->j;
	fc->next = 0;
	v = jwriter_trusted(JW_COREDUMP, jentry_field, fc, NULL, NULL) ? jentry_field(fc, "COREDUMP_PID") : NULL;
	sd_journal_get_realtime_usec(s->j, &usec);
	for (i = s->n_pending; v && i-- > 0;)
		if (s->pending[i].pid > 0 && (unsigned long)s->pending[i].pid == strtoul(v, NULL, 10) &&
		    usec >= s->pending[i].usec)
			break;
	if (!v || i == (size_t)-1) {
		free(fc);
		return 0;
	}
	p = s->pending[i];
	memmove(&s->pending[i], &s->pending[i + 1], (s->n_pending - i - 1) * sizeof(s->pending[0]));
	s->n_pending--;
	v = jentry_field(fc, "COREDUMP_FILENAME");
	snprintf(file, sizeof(file), "%s", v ? v : "");
	free(fc);
	if (!file[0]) {
		sd_journal_set_data_threshold(s->j, FAULTD_CORE_MAX + strlen("COREDUMP=") + 1);
		if (sd_journal_get_data(s->j, "COREDUMP", &d, &len) < 0)
			d = NULL;
	}
	n = core_load_entry(file, d, len, FAULTD_CORE_MAX, &data, &size, lwhy, sizeof(lwhy));
	sd_journal_set_data_threshold(s->j, 64 * 1024);
	if (n < 0)
		why = lwhy;
	else
		n = core_frames(data, size, p.tid, fr, BUG_CALLERS + 1, &why);
	free(data);
	faultd_frames_entry(&p, fr, n, why, &s->e);
	if (s->o->print) {
		log_struct_print(stdout, &s->e);
		fflush(stdout);
		return 0;
	}
	r = log_struct_send(&s->e);
	if (r < 0)
		log_msg(LOG_ERR, NULL, "cannot write the frames entry of a fault of %s[%d] to the journal: %s",
		    p.comm, (int)p.pid, strerror(-r));
	return r;
}

/* The entry J is on: build and write its fault entry, if any, then move
 * the cursor.  Returns 0 or -errno (the caller exits: the entry is done
 * again after a restart). */
static int handle_entry(struct follow *s)
{
	struct faultd_kmsg k = { 0 };
	const void *data;
	size_t len;
	char *cursor = NULL;
	enum faultd_kind kind = FAULTD_NONE;
	bool written_before = false;
	int r;

	r = sd_journal_get_cursor(s->j, &cursor);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot get the cursor of a kernel journal entry: %s", strerror(-r));
		return r;
	}
	if (is_coredump(s->j)) {
		r = handle_core(s);
		if (r == 0) {
			faultcount_set_cursor(&s->count, cursor);
			s->cursor_dirty = true;
		}
		free(cursor);
		return r;
	}
	r = sd_journal_get_data(s->j, "MESSAGE", &data, &len);
	if (r >= 0 && len > strlen("MESSAGE=")) {
		k.text = (const char *)data + strlen("MESSAGE=");
		k.len = len - strlen("MESSAGE=");
		k.cursor = cursor;
		if (sd_journal_get_realtime_usec(s->j, &k.realtime_usec) < 0)
			k.realtime_usec = 0;
		/* Cheap test first: most kernel lines are not ours. */
		if (memmem(k.text, k.len, "tag check fault", strlen("tag check fault")) ||
		    memmem(k.text, k.len, "fault reports suppressed", strlen("fault reports suppressed")))
			kind = faultd_decide(s->o->proc, &k, &s->rec);
		if (kind == FAULTD_FAULT) {
			/* The kernel's own lines have facility 0 (LOG_KERN);
			 * a line written to /dev/kmsg gets LOG_USER at least. */
			bool kernel = sd_journal_get_data(s->j, "SYSLOG_FACILITY", &data, &len) >= 0 &&
				      len == strlen("SYSLOG_FACILITY=0") &&
				      memcmp(data, "SYSLOG_FACILITY=0", len) == 0;

			upgrade_step(s, kernel, &s->rec);
		}
	} else if (r < 0 && r != -ENOENT) {
		log_msg(LOG_WARNING, NULL, "kernel journal entry %s: cannot read its MESSAGE: %s (skipped)",
		    cursor, strerror(-r));
	}
	s->count.lines++;
	count_entry(s, kind);
	if (kind != FAULTD_NONE && s->check_written && !s->o->print) {
		s->check_written = false;
		r = entry_written(s, cursor);
		if (r < 0)
			log_msg(LOG_WARNING, NULL, "cannot look for an entry of kernel entry %s written before a restart: %s",
			    cursor, strerror(-r));
		if (r > 0) {
			log_msg(LOG_INFO, NULL, "kernel entry %s: its fault entry was written before the restart (not repeated)",
			    cursor);
			s->already++;
			kind = FAULTD_NONE;
			written_before = true;
		}
	}
	if (kind != FAULTD_NONE) {
		r = send_entry(s);
		if (r == 0 && s->kill_after && s->faults + s->unparsed + 1 >= s->kill_after)
			raise(SIGKILL); /* tests: the crash between entry and cursor */
		if (r < 0) {
			log_msg(LOG_ERR, NULL, "cannot write the fault entry to the journal: %s (kernel entry %s)",
			    strerror(-r), cursor);
			free(cursor);
			return r;
		}
		if (kind == FAULTD_FAULT) {
			struct faultd_pending p;

			s->faults++;
			if (faultd_pending_of(&s->rec, &p)) {
				if (s->n_pending == PENDING_MAX)
					memmove(&s->pending[0], &s->pending[1], (PENDING_MAX - 1) * sizeof(p));
				else
					s->n_pending++;
				s->pending[s->n_pending - 1] = p;
			}
		}
		else if (kind == FAULTD_UNPARSED)
			s->unparsed++;
	}
	faultcount_set_cursor(&s->count, cursor);
	free(cursor);
	s->cursor_dirty = true;
	/* After a fault line the cursor goes to disk at once (a crash must not
	 * repeat its entry); after other kernel lines when the journal is idle. */
	if (kind != FAULTD_NONE || written_before) {
		r = save_cursor(s, true);
		if (r < 0)
			return r;
		sd_notifyf(0, "STATUS=Following the kernel's messages: %lu tag-check fault%s reported%s",
			   s->faults, s->faults == 1 ? "" : "s",
			   s->unparsed ? ", some lines unreadable" : "");
	}
	return 0;
}

/* DIR/state, or else DIR/cursor of an older mtag-faultd (the counts then
 * start at 0 from its cursor).  The saved cursor in *SAVED (malloc'ed,
 * NULL: none), the counts in S->count, reset when they are of another
 * boot.  0 or -errno (a state file that does not parse: its line is
 * named, and faultd stops rather than count from 0 again). */
static int load_state(struct follow *s, const char *boot, char **saved)
{
	const char *what, *why;
	char cboot[33];
	size_t line;
	int r;

	*saved = NULL;
	r = faultcount_load(s->state_path, &s->count, &line, &why);
	if (r == -EBADMSG) {
		log_msg(LOG_ERR, NULL, "%s:%zu: %s (remove the file to count from the start of this boot again)",
		    s->state_path, line, why);
		return r;
	}
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot read %s: %s", s->state_path, strerror(-r));
		return r;
	}
	if (r > 0 && strcmp(s->count.boot, boot) != 0) {
		log_msg(LOG_INFO, NULL, "%s: of another boot: counting from 0, from this boot's first kernel message",
		    s->state_path);
		faultcount_reset(&s->count, boot);
		return 0;
	}
	if (r > 0) {
		if (s->count.cursor)
			*saved = xstrdup(s->count.cursor);
		return 0;
	}
	faultcount_reset(&s->count, boot);
	r = faultd_cursor_load(s->o->state_dir, saved, &what);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot read %s: %s", what, strerror(-r));
		return r;
	}
	if (r > 0) {
		s->legacy_cursor = true;
		if (!faultd_cursor_boot(*saved, cboot, sizeof(cboot)) || strcmp(cboot, boot) != 0) {
			free(*saved);
			*saved = NULL;
		} else {
			log_msg(LOG_INFO, NULL, "%s of an older mtag-faultd: going on from it, counting from 0", what);
		}
	}
	return 0;
}

/* Position J after the saved cursor, or at the start of this boot.
 * Returns 1 when J is on an entry still to handle, 0 when the next
 * sd_journal_next() gives it, -errno. */
static int seek_start(struct follow *s, const char *boot)
{
	char *saved = NULL, cboot[33];
	const char *what = s->state_path;
	int r;

	r = load_state(s, boot, &saved);
	if (r < 0)
		return r;
	if (saved && (!faultd_cursor_boot(saved, cboot, sizeof(cboot)) || strcmp(cboot, boot) != 0)) {
		log_msg(LOG_INFO, NULL, "%s: a cursor of another boot: starting at this boot's first kernel message", what);
		faultcount_reset(&s->count, boot);
		free(saved);
		saved = NULL;
	}
	if (saved) {
		r = sd_journal_seek_cursor(s->j, saved);
		if (r < 0) {
			log_msg(LOG_WARNING, NULL, "%s: cannot seek to cursor '%s': %s: starting at this boot's first kernel message",
			    what, saved, strerror(-r));
		} else {
			r = sd_journal_next(s->j);
			if (r < 0) {
				log_msg(LOG_ERR, NULL, "reading the journal: %s", strerror(-r));
				free(saved);
				return r;
			}
			/* Going on from the cursor of an earlier run: its
			 * last entry may be written with the cursor not. */
			s->check_written = true;
			if (r == 0 || sd_journal_test_cursor(s->j, saved) > 0) {
				/* On the saved entry (done), or past the end. */
				free(saved);
				return 0;
			}
			/* The saved entry is gone (rotated away): J is on the
			 * first entry after where it was. */
			log_msg(LOG_WARNING, NULL, "%s: kernel entry %s is no longer in the journal: going on from the next one",
			    what, saved);
			free(saved);
			return 1;
		}
		free(saved);
	}
	r = sd_journal_seek_head(s->j);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot seek to the start of the journal: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int wait_journal(struct follow *s, int sfd)
{
	struct pollfd p[2];
	uint64_t t;
	int r, ms = -1;

	r = sd_journal_get_fd(s->j);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot watch the journal: %s", strerror(-r));
		return r;
	}
	p[0] = (struct pollfd){ .fd = r, .events = (short)sd_journal_get_events(s->j) };
	p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	if (sd_journal_get_timeout(s->j, &t) >= 0 && t != (uint64_t)-1) {
		struct timespec ts;
		uint64_t now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
		ms = t > now ? (int)((t - now + 999) / 1000) : 0;
	}
	r = poll(p, 2, ms);
	if (r < 0 && errno != EINTR) {
		log_msg(LOG_ERR, NULL, "poll: %s", strerror(errno));
		return -errno;
	}
	if (p[1].revents & POLLIN)
		return 1; /* SIGTERM or SIGINT */
	r = sd_journal_process(s->j);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "reading the journal: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int run_journal(const struct opts *o)
{
	struct follow s = { .o = o };
	const char *ka = getenv("MTAG_FAULTD_TEST_KILL_AFTER");
	sd_id128_t boot_id;
	char boot[33], match[64];
	sigset_t ss;
	int r, sfd = -1, rc = EXIT_FAILURE;

	/* SIGTERM and SIGINT through a signalfd next to the journal's fd:
	 * sd_journal_wait() restarts its poll() after a signal, so it cannot
	 * be woken for a clean stop. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0 ||
	    (sfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		log_msg(LOG_ERR, NULL, "signalfd: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	r = sd_id128_get_boot(&boot_id);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot read this boot's ID (/proc/sys/kernel/random/boot_id): %s", strerror(-r));
		goto out;
	}
	sd_id128_to_string(boot_id, boot);
	if (asprintf(&s.state_path, "%s/state", o->state_dir) < 0)
		abort();
	faultcount_init(&s.count);
	/* Tests only: die by SIGKILL right after writing the Nth entry, before
	 * its cursor is saved (the crash the restart must not repeat). */
	if (ka)
		s.kill_after = strtoul(ka, NULL, 10);
	if (o->journal_dir)
		r = sd_journal_open_directory(&s.j, o->journal_dir, 0);
	else
		r = sd_journal_open(&s.j, SD_JOURNAL_SYSTEM);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot open the %s journal%s%s: %s", o->journal_dir ? "" : "system",
		    o->journal_dir ? " in " : "", o->journal_dir ? o->journal_dir : "", strerror(-r));
		goto out;
	}
	snprintf(match, sizeof(match), "_BOOT_ID=%s", boot);
	/* The kernel's lines, and systemd-coredump's entries (a core of a
	 * fault: its frames), of this boot. */
	if ((r = sd_journal_add_match(s.j, "_TRANSPORT=kernel", 0)) < 0 ||
	    (r = sd_journal_add_match(s.j, match, 0)) < 0 ||
	    (r = sd_journal_add_disjunction(s.j)) < 0 ||
	    (r = sd_journal_add_match(s.j, "MESSAGE_ID=" MSGID_COREDUMP, 0)) < 0 ||
	    (r = sd_journal_add_match(s.j, match, 0)) < 0) {
		log_msg(LOG_ERR, NULL, "sd_journal_add_match: %s", strerror(-r));
		goto out;
	}
	r = seek_start(&s, boot);
	if (r < 0)
		goto out;
	if (r > 0 && handle_entry(&s) < 0)
		goto out;
	sd_notifyf(0, "READY=1\nSTATUS=Following the kernel's messages");
	for (;;) {
		r = sd_journal_next(s.j);
		if (r < 0) {
			log_msg(LOG_ERR, NULL, "reading the journal: %s", strerror(-r));
			goto out;
		}
		if (r > 0) {
			if (handle_entry(&s) < 0)
				goto out;
			continue;
		}
		/* Caught up: the cursor of the last line to disk, then wait. */
		if (save_cursor(&s, false) < 0)
			goto out;
		r = wait_journal(&s, sfd);
		if (r < 0)
			goto out;
		if (r > 0)
			break;
	}
	sd_notify(0, "STOPPING=1");
	rc = save_cursor(&s, true) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
out:
	faultd_record_free(&s.rec);
	log_struct_free(&s.e);
	if (s.policy.loaded)
		policy_free(&s.policy.p);
	faultcount_free(&s.count);
	free(s.state_path);
	if (s.j)
		sd_journal_close(s.j);
	if (sfd >= 0)
		close(sfd);
	return rc;
}

enum { OPT_STATE_DIR = 256, OPT_FROM_STDIN, OPT_PROC, OPT_JOURNAL_DIR, OPT_PRINT, OPT_VERSION,
       OPT_UPGRADE_DIR, OPT_ROOT, OPT_CONFIG, OPT_DPKG_ADMINDIR };

/* As systemd's parse_argv(): 1 to go on, 0 when the work is done
 * (--help, --version), -1 on a usage error (said). */
static int parse_args(int argc, char **argv, struct opts *o, const char **state_dir)
{
	static const struct option longopts[] = {
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "from-stdin", no_argument, NULL, OPT_FROM_STDIN },
		{ "proc", required_argument, NULL, OPT_PROC },
		/* For the tests: journal files of a directory, and the
		 * entries printed instead of written. */
		{ "journal-dir", required_argument, NULL, OPT_JOURNAL_DIR },
		{ "print", no_argument, NULL, OPT_PRINT },
		{ "upgrade-dir", required_argument, NULL, OPT_UPGRADE_DIR },
		{ "dpkg-admindir", required_argument, NULL, OPT_DPKG_ADMINDIR },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_STATE_DIR:
			*state_dir = optarg;
			break;
		case OPT_FROM_STDIN:
			o->from_stdin = true;
			break;
		case OPT_PROC:
			o->proc = optarg;
			break;
		case OPT_JOURNAL_DIR:
			o->journal_dir = optarg;
			break;
		case OPT_PRINT:
			o->print = true;
			break;
		case OPT_UPGRADE_DIR:
			o->upgrade_dir = optarg;
			break;
		case OPT_DPKG_ADMINDIR:
			bug_set_dpkg_admindir(optarg);
			break;
		case OPT_ROOT:
			o->conf.root = optarg;
			break;
		case OPT_CONFIG:
			o->conf.single = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf(PROG " %s\n", MTAG_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return -1;
		}
	}
	if (optind < argc) {
		log_msg(LOG_ERR, NULL, "unexpected argument '%s' (see --help)", argv[optind]);
		return -1;
	}
	if (o->from_stdin && (*state_dir || o->journal_dir)) {
		log_msg(LOG_ERR, NULL, "--from-stdin reads no journal: --state-dir and --journal-dir do not go with it");
		return -1;
	}
	return 1;
}

/* DIR is a directory, or -1 (said). */
static int state_dir_check(const char *dir)
{
	const char *why = NULL;
	struct stat st;

	if (stat(dir, &st) < 0)
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	if (!why)
		return 0;
	log_msg(LOG_ERR, NULL, "state directory %s: %s (--state-dir, $STATE_DIRECTORY)", dir, why);
	return -1;
}

static int run(int argc, char **argv)
{
	struct opts o = { .proc = "/proc" };
	const char *state_dir = NULL;
	int r, rc;

	log_setup(PROG, LOG_STREAM, false);
	r = parse_args(argc, argv, &o, &state_dir);
	if (r <= 0)
		return r < 0 ? EXIT_INVALIDARGUMENT : EXIT_SUCCESS;
	if (o.from_stdin)
		return run_stdin(&o);

	o.state_dir = faultd_state_dir(state_dir);
	rc = state_dir_check(o.state_dir) < 0 ? EXIT_FAILURE : run_journal(&o);
	free(o.state_dir);
	return rc;
}

DEFINE_MAIN_FUNCTION(run)
