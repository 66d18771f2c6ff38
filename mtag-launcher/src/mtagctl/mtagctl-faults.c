/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-faults.c -- "mtagctl faults": every tag-check fault mtag-faultd
 * recorded in the journal, as a short report; with systemd-coredump's core
 * of that crash (MTE tag segments since Linux 5.18) the cause is checked
 * against glibc's chunk header, and its stack trace is shown. */
/* corefile.h first: <signal.h> (from <sys/wait.h>) defines si_addr. */
#include "corefile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "cause.h"
#include "coreframes.h"
#include "coreload.h"
#include "escape.h"
#include "faultfields.h"
#include "faultline.h"
#include "json.h"
#include "log.h"
#include "mtagctl.h"
#include "mtagctl-bugs.h"
#include "mtagctl-sd.h"
#include "mtagctl-verdict.h"
#include "procmaps.h"
#include "systemd-time.h"
#include "util.h"

struct fault_rec {
	uint64_t usec;
	char boot[33];
	char hostname[256], machine_id[33]; /* journald's _HOSTNAME, _MACHINE_ID */
	char message[1024];                 /* MESSAGE, for -o cat */
	char unit[256], comm[64], kind[8], action[16], mode[32];
	pid_t pid, tid;           /* 0: none (or not a number) */
	char addr[24], ptr_tag[8], mem_tag[16], pc[24], pc_object[600], tags[32];
	char cause[32], confidence[16], text[512], kernel[1024], cgroup[512];
	/* The bug's identity (bugid.h), when mtag-faultd could read it. */
	char signature[24], sig_kind[16], object[1024], offset[24], build_id[160], package[256];
	char version[128], bug_note[512];
	/* From the core, when there is one. */
	bool has_core;
	char core_file[600];
	char core_note[256];      /* why the core was not used, or "" */
	char *stack;              /* systemd-coredump's stack trace, or NULL */
	struct bug_frame frames[BUG_CALLERS + 1]; /* the pc and its callers (coreframes.h) */
	int n_frames;
	char stack_sig[BUG_SIGNATURE_LEN + 1]; /* bug_stack_signature(), "" none */
	uint64_t alloc_size;
	/* The upgraded start (mtag-policy.conf(5), upgrade=). */
	char upgrade_next[16];     /* async: yes | limit | error */
	char upgrade_nsec[24];
	char upgraded_from[512];   /* sync: the async fault's kernel cursor */
	uint64_t upgraded_from_usec;
	uint64_t upgrade_start_usec, upgrade_until_usec; /* the launcher's entry */
};

/* The journals to read, as journalctl chooses them: -D DIR, --file FILE,
 * -m (every machine's journal under /var/log/journal), or this
 * machine's system journal. */
static int journal_open(const struct ctl *c, sd_journal **j)
{
	if (c->directory)
		return sd_journal_open_directory(j, c->directory, 0);
	if (c->files)
		return sd_journal_open_files(j, c->files, 0);
	return sd_journal_open(j, c->merge ? SD_JOURNAL_SYSTEM : SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
}

int fault_journal_open(const struct ctl *c, sd_journal **j)
{
	int e = journal_open(c, j);

	if (e < 0)
		log_msg(LOG_ERR, NULL, "cannot open the journal%s%s: %s", c->directory ? " in " : "",
			c->directory ? c->directory : "", strerror(-e));
	return e;
}

void fault_journal_match(const struct ctl *c, sd_journal *j)
{
	fault_journal_match_id(c, j, MSGID_FAULT);
}

void fault_journal_match_id(const struct ctl *c, sd_journal *j, const char *msgid)
{
	char m[300];

	snprintf(m, sizeof(m), "MESSAGE_ID=%s", msgid);
	sd_journal_add_match(j, m, 0);
	sd_journal_add_match(j, "_UID=0", 0);
	if (c->unit) {
		snprintf(m, sizeof(m), "MTAG_UNIT=%s%s", c->unit, strchr(c->unit, '.') ? "" : ".service");
		sd_journal_add_match(j, m, 0);
	}
}

/* Journals other than this machine's own: each fault shows its host. */
static bool other_hosts(const struct ctl *c)
{
	return c->directory || c->files || c->merge;
}

static char *field_dup(sd_journal *j, const char *name)
{
	const void *d;
	size_t l, nl = strlen(name);

	if (sd_journal_get_data(j, name, &d, &l) < 0 || l < nl + 1)
		return NULL;
	return xstrndup((const char *)d + nl + 1, l - nl - 1);
}

/* Field NAME as a process ID, 0 when missing or not one. */
static pid_t field_pid(sd_journal *j, const char *name)
{
	char buf[16], *end;
	unsigned long v;

	sd_ctl_field(j, name, buf, sizeof(buf));
	errno = 0;
	v = strtoul(buf, &end, 10);
	return buf[0] >= '0' && buf[0] <= '9' && !*end && !errno && v <= INT_MAX ? (pid_t)v : 0;
}

static void read_rec(sd_journal *j, struct fault_rec *r)
{
	sd_id128_t boot;

	memset(r, 0, sizeof(*r));
	sd_journal_get_realtime_usec(j, &r->usec);
	if (sd_journal_get_monotonic_usec(j, NULL, &boot) >= 0)
		sd_id128_to_string(boot, r->boot);
	sd_ctl_field(j, "_HOSTNAME", r->hostname, sizeof(r->hostname));
	sd_ctl_field(j, "_MACHINE_ID", r->machine_id, sizeof(r->machine_id));
	sd_ctl_field(j, "MESSAGE", r->message, sizeof(r->message));
	sd_ctl_field(j, "MTAG_UNIT", r->unit, sizeof(r->unit));
	sd_ctl_field(j, "MTAG_CGROUP", r->cgroup, sizeof(r->cgroup));
	sd_ctl_field(j, "MTAG_COMM", r->comm, sizeof(r->comm));
	r->pid = field_pid(j, "MTAG_PID");
	r->tid = field_pid(j, "MTAG_TID");
	sd_ctl_field(j, "MTAG_FAULT_KIND", r->kind, sizeof(r->kind));
	sd_ctl_field(j, "MTAG_FAULT_ACTION", r->action, sizeof(r->action));
	sd_ctl_field(j, "MTAG_MODE", r->mode, sizeof(r->mode));
	sd_ctl_field(j, "MTAG_ADDR", r->addr, sizeof(r->addr));
	sd_ctl_field(j, "MTAG_PTR_TAG", r->ptr_tag, sizeof(r->ptr_tag));
	sd_ctl_field(j, "MTAG_MEM_TAG", r->mem_tag, sizeof(r->mem_tag));
	sd_ctl_field(j, "MTAG_PC", r->pc, sizeof(r->pc));
	sd_ctl_field(j, "MTAG_PC_OBJECT", r->pc_object, sizeof(r->pc_object));
	sd_ctl_field(j, "MTAG_TAGS", r->tags, sizeof(r->tags));
	sd_ctl_field(j, "MTAG_CAUSE", r->cause, sizeof(r->cause));
	sd_ctl_field(j, "MTAG_CAUSE_CONFIDENCE", r->confidence, sizeof(r->confidence));
	sd_ctl_field(j, "MTAG_CAUSE_TEXT", r->text, sizeof(r->text));
	sd_ctl_field(j, "MTAG_KERNEL_MESSAGE", r->kernel, sizeof(r->kernel));
	sd_ctl_field(j, "MTAG_SIGNATURE", r->signature, sizeof(r->signature));
	sd_ctl_field(j, "MTAG_SIGNATURE_KIND", r->sig_kind, sizeof(r->sig_kind));
	sd_ctl_field(j, "MTAG_OBJECT", r->object, sizeof(r->object));
	sd_ctl_field(j, "MTAG_OFFSET", r->offset, sizeof(r->offset));
	sd_ctl_field(j, "MTAG_BUILD_ID", r->build_id, sizeof(r->build_id));
	sd_ctl_field(j, "MTAG_PACKAGE", r->package, sizeof(r->package));
	sd_ctl_field(j, "MTAG_PACKAGE_VERSION", r->version, sizeof(r->version));
	sd_ctl_field(j, "MTAG_BUG_NOTE", r->bug_note, sizeof(r->bug_note));
	sd_ctl_field(j, "MTAG_UPGRADE_NEXT", r->upgrade_next, sizeof(r->upgrade_next));
	sd_ctl_field(j, "MTAG_UPGRADE_NSEC", r->upgrade_nsec, sizeof(r->upgrade_nsec));
	sd_ctl_field(j, "MTAG_UPGRADED_FROM", r->upgraded_from, sizeof(r->upgraded_from));
	{
		char v[32] = "";

		sd_ctl_field(j, "MTAG_UPGRADED_FROM_USEC", v, sizeof(v));
		r->upgraded_from_usec = strtoull(v, NULL, 10);
	}
	if (!r->unit[0])
		snprintf(r->unit, sizeof(r->unit), "-");
}

/* systemd-coredump's MESSAGE: keep the "Stack trace of thread" part. */
static char *stack_of(const char *msg)
{
	const char *s = msg ? strstr(msg, "Stack trace of thread") : NULL;

	return s ? xstrdup(s) : NULL;
}

/* The core of systemd-coredump's entry, current in J: from the file it
 * names (coreload.h: only a regular file in the coredump directory,
 * capped), or from its COREDUMP field (Storage=journal), capped too.
 * Returns 0 with *DATA (malloc'ed) and *SIZE, or -errno with WHY. */
static int load_core(sd_journal *j, const char *file, void **data, size_t *size, char *why, size_t wlen)
{
	const void *d = NULL;
	size_t l = 0;

	if (!file[0]) {
		sd_journal_set_data_threshold(j, CORE_LOAD_MAX + strlen("COREDUMP=") + 1);
		if (sd_journal_get_data(j, "COREDUMP", &d, &l) < 0)
			d = NULL;
	}
	return core_load_entry(file, d, l, CORE_LOAD_MAX, data, size, why, wlen);
}

/* The top frames of R's thread in the core DATA (coreframes.h), and the
 * stack signature under R's signature (bugid.h: the pc's, not an async
 * fault's coarse one, whose frames are where it was reported). */
static void add_frames(struct fault_rec *r, void *data, size_t size)
{
	const char *why = NULL;
	int n = core_frames(data, size, r->tid, r->frames, BUG_CALLERS + 1, &why);

	if (n < 0) {
		size_t l = strlen(r->core_note);

		snprintf(r->core_note + l, sizeof(r->core_note) - l, "%sno frames: %s", l ? "; " : "", why);
		return;
	}
	r->n_frames = n;
	if (strcmp(r->kind, "sync") == 0 && strcmp(r->sig_kind, "coarse") != 0)
		bug_stack_signature(r->signature, r->frames, (size_t)n, r->stack_sig, NULL);
}

/* Find systemd-coredump's entry for R's process and use it.  Only an
 * entry systemd-coredump wrote counts (trust.h): anybody can write one
 * with its MESSAGE_ID and a COREDUMP_FILENAME of their choosing. */
static void add_core(const struct ctl *c, struct fault_rec *r)
{
	sd_journal *j;
	char m[128], file[600] = "", maps_pc[600] = "", why[256] = "";
	char *msg = NULL, *maps = NULL;
	void *data = NULL;
	size_t size = 0;
	struct mte_fault f;
	int found = 0, e = -ENOENT;
	bool want_core, want_tags;

	if (!r->pid || !r->boot[0] || strcmp(r->action, "signal") != 0)
		return;
	if (journal_open(c, &j) < 0)
		return;
	/* The core for its frames (any fault), and for its tags (a sync
	 * fault, which has an address). */
	want_core = !c->no_core;
	want_tags = want_core && r->kernel[0] &&
		    mte_fault_parse(r->kernel, strlen(r->kernel), &f) == 1 && f.has_addr;
	sd_journal_add_match(j, "MESSAGE_ID=" MSGID_COREDUMP, 0);
	snprintf(m, sizeof(m), "COREDUMP_PID=%d", (int)r->pid);
	sd_journal_add_match(j, m, 0);
	snprintf(m, sizeof(m), "_BOOT_ID=%s", r->boot);
	sd_journal_add_match(j, m, 0);
	sd_journal_seek_realtime_usec(j, r->usec > 1000000 ? r->usec - 1000000 : 0);
	while (!found && sd_journal_next(j) > 0) {
		if (!sd_ctl_trusted(j, JW_COREDUMP, NULL))
			continue;
		found = 1;
		sd_ctl_field(j, "COREDUMP_FILENAME", file, sizeof(file));
		msg = field_dup(j, "MESSAGE");
		maps = field_dup(j, "COREDUMP_PROC_MAPS");
		if (want_core)
			e = load_core(j, file, &data, &size, why, sizeof(why));
	}
	sd_journal_close(j);
	if (!found)
		return;
	r->has_core = true;
	snprintf(r->core_file, sizeof(r->core_file), "%s", file[0] ? file : "(in the journal)");
	r->stack = stack_of(msg);
	free(msg);
	/* The pc's object from the maps the core recorded. */
	if (maps && !r->pc_object[0] && r->pc[0]) {
		uint64_t pc = strtoull(r->pc, NULL, 0);

		struct procmap pm;

		if (procmaps_find_text(maps, strlen(maps), pc, &pm) == 1)
			snprintf(r->pc_object, sizeof(r->pc_object), "%s",
				 procmap_describe(&pm, pc, maps_pc, sizeof(maps_pc)));
	}
	free(maps);
	if (!want_core)
		return;
	if (e < 0) {
		snprintf(r->core_note, sizeof(r->core_note), "%s", why);
		return;
	}
	if (want_tags) {
		struct corefile cf;
		struct mte_mem_view v;
		struct mte_cause_info ci;

		e = core_open_mem(&cf, data, size);
		if (e < 0) {
			snprintf(r->core_note, sizeof(r->core_note), "cannot read the core: %s",
				 e == -ENOEXEC ? "not an arm64 ELF core" : strerror(-e));
		} else {
			core_mem_view(&cf, &v);
			mte_classify(&f, &v, &ci);
			if (ci.confidence == MTE_CONF_CERTAIN || ci.cause != MTE_CAUSE_UNKNOWN) {
				snprintf(r->cause, sizeof(r->cause), "%s", mte_cause_name(ci.cause));
				snprintf(r->confidence, sizeof(r->confidence), "%s", mte_confidence_name(ci.confidence));
				snprintf(r->text, sizeof(r->text), "%s", ci.text);
				r->alloc_size = ci.alloc_size;
			}
			if (!core_has_tags(&cf))
				snprintf(r->core_note, sizeof(r->core_note),
					 "the core has no MTE tag segments (kernel before 5.18?)");
			core_close(&cf);
		}
	}
	add_frames(r, data, size);
	free(data);
}

/* The launcher's entry of the upgraded start that R's async fault caused:
 * when it started and until when it ran in sync.  Only an entry that
 * journald attributes to the unit itself (_SYSTEMD_UNIT) counts. */
static void add_upgrade_start(const struct ctl *c, struct fault_rec *r)
{
	sd_journal *j;
	char m[700], v[32];

	if (!r->upgraded_from[0] || journal_open(c, &j) < 0)
		return;
	sd_journal_add_match(j, "MESSAGE_ID=" MSGID_UPGRADED_START, 0);
	snprintf(m, sizeof(m), "MTAG_UPGRADE_FAULT_CURSOR=%s", r->upgraded_from);
	sd_journal_add_match(j, m, 0);
	snprintf(m, sizeof(m), "_SYSTEMD_UNIT=%s", r->unit);
	sd_journal_add_match(j, m, 0);
	if (sd_journal_next(j) > 0) {
		sd_journal_get_realtime_usec(j, &r->upgrade_start_usec);
		v[0] = '\0';
		sd_ctl_field(j, "MTAG_UPGRADE_UNTIL_USEC", v, sizeof(v));
		r->upgrade_until_usec = strtoull(v, NULL, 10);
	}
	sd_journal_close(j);
}

static void print_upgrade(const struct fault_rec *r)
{
	char a[16], b[16], c2[16], d[16], e_text[2048];

	if (r->upgraded_from[0]) {
		clock_hms(r->upgraded_from_usec, a, sizeof(a));
		clock_hms(r->usec, d, sizeof(d));
		printf("    upgrade: async fault at %s -> upgraded start", a);
		if (r->upgrade_start_usec) {
			clock_hms(r->upgrade_start_usec, b, sizeof(b));
			clock_hms(r->upgrade_until_usec, c2, sizeof(c2));
			printf(" at %s (sync until %s)", b, c2);
		}
		printf(" -> sync fault at %s: %s\n", d,
		       r->text[0] ? cescape(r->text, e_text, sizeof(e_text)) :
		       r->cause[0] ? cescape(r->cause, e_text, sizeof(e_text)) : "cause unknown");
	} else if (strcmp(r->upgrade_next, "yes") == 0) {
		char span[64] = "its upgrade= window";
		uint64_t ns = strtoull(r->upgrade_nsec, NULL, 10);

		if (ns)
			duration_format(ns, span, sizeof(span));
		printf("    upgrade: the next start runs in sync for %s, so that the bug is caught exactly\n", span);
	} else if (strcmp(r->upgrade_next, "limit") == 0) {
		printf("    upgrade: none, the upgraded start of this boot was used (once per boot)\n");
	}
}

static void print_time(uint64_t usec, char *buf, size_t len)
{
	timestamp_format_local(usec, "%a %Y-%m-%d %H:%M:%S %Z", NULL, buf, len);
}

/* Every string of a record came from the journal, and some from the
 * crashed process (its name, its mapped files, its stack's symbols):
 * escaped before they reach the terminal (escape.h). */
#define ESC(field) cescape(r->field, e_##field, sizeof(e_##field))

/* The core's frames: the build-id and offset that name each on every
 * host, and the file as this process mapped it (escaped: its bytes are
 * the core's). */
static void print_frames(const struct fault_rec *r)
{
	bool async = strcmp(r->kind, "async") == 0;

	for (int i = 0; i < r->n_frames; i++) {
		const struct bug_frame *fr = &r->frames[i];
		char e_obj[4 * sizeof(fr->object) + 1];

		printf("    %s #%d %s+0x%" PRIx64 "  %s\n", i ? "       " : "frames:", i,
		       fr->object[0] ? (fr->build_id[0] ? fr->build_id : "(no build-id)") : "?",
		       fr->object[0] ? fr->offset : fr->pc,
		       fr->object[0] ? cescape(fr->object, e_obj, sizeof(e_obj)) : "(no file mapped there)");
	}
	if (r->n_frames && async)
		printf("            (where the async fault was reported, not where it happened)\n");
	if (r->stack_sig[0])
		printf("    stack:  %s  (the signature and the callers: one per path to the faulting instruction)\n",
		       r->stack_sig);
}

static void print_rec(const struct ctl *c, const struct fault_rec *r)
{
	char when[64];
	char e_hostname[1024], e_unit[1024], e_comm[256], e_kind[32], e_cause[128], pid[16] = "", tid[16] = "";
	char e_confidence[64], e_text[2048], e_addr[96], e_ptr_tag[32], e_mem_tag[64];
	char e_tags[128], e_pc[96], e_pc_object[2400], e_mode[128], e_core_file[2400];
	char e_core_note[1024], e_signature[96], e_object[4096], e_offset[96], e_build_id[640];
	char e_package[1024], e_version[512], e_bug_note[2048];
	bool report = strncmp(r->action, "report", 6) == 0;

	print_time(r->usec, when, sizeof(when));
	if (r->pid)
		snprintf(pid, sizeof(pid), "%d", (int)r->pid);
	if (r->tid)
		snprintf(tid, sizeof(tid), "%d", (int)r->tid);
	printf("%s%s  %s%s%s  %s[%s] thread %s  %s, %s%s\n", ctl_color(c, ANSI_BOLD), when,
	       other_hosts(c) ? (r->hostname[0] ? ESC(hostname) : "?") : "", other_hosts(c) ? "  " : "",
	       ESC(unit), ESC(comm), pid, tid, ESC(kind),
	       report ? "reported (report mode, the service ran on)" : "SIGSEGV",
	       ctl_color(c, ANSI_RESET));
	printf("    cause:  %s%s%s (%s%s): %s\n", report ? ctl_color(c, ANSI_YELLOW) : ctl_color(c, ANSI_RED),
	       r->cause[0] ? ESC(cause) : "unknown", ctl_color(c, ANSI_RESET),
	       r->confidence[0] ? ESC(confidence) : "none",
	       strcmp(r->confidence, "certain") == 0 ? ", from the core's chunk header" : "",
	       r->text[0] ? ESC(text) : "-");
	if (r->addr[0])
		printf("    addr:   %s  pointer tag %s  memory tag %s\n", ESC(addr), ESC(ptr_tag), ESC(mem_tag));
	if (r->tags[0])
		printf("    tags:   %s  (8 granules before, [the faulting one], 8 after; - not mapped)\n", ESC(tags));
	if (r->pc[0])
		printf("    pc:     %s  %s\n", ESC(pc), r->pc_object[0] ? ESC(pc_object) : "(binary unknown: the process was gone)");
	if (r->mode[0])
		printf("    mode:   %s\n", ESC(mode));
	if (r->signature[0] || r->object[0]) {
		if (strcmp(r->sig_kind, "coarse") == 0)
			printf("    bug:    %s  %s (async, no pc: coarse, one per program build)",
			       r->signature[0] ? ESC(signature) : "(no signature)", ESC(object));
		else
			printf("    bug:    %s  %s+%s", r->signature[0] ? ESC(signature) : "(no signature)",
			       ESC(object), ESC(offset));
		if (r->build_id[0])
			printf("  build-id %s", ESC(build_id));
		if (r->package[0])
			printf("  package %s %s", ESC(package), ESC(version));
		printf("\n");
	}
	if (r->bug_note[0])
		printf("    note:   %s\n", ESC(bug_note));
	print_frames(r);
	print_upgrade(r);
	if (r->has_core) {
		printf("    core:   %s%s%s\n", ESC(core_file), r->core_note[0] ? "; " : "", ESC(core_note));
		if (r->stack) {
			const char *s = r->stack;
			int lines = 0;

			while (*s && lines < 12) {
				const char *e = strchr(s, '\n');
				size_t l = e ? (size_t)(e - s) : strlen(s);
				char line[512], escaped[2048];

				if (l >= sizeof(line))
					l = sizeof(line) - 1;
				memcpy(line, s, l);
				line[l] = '\0';
				if (l)
					printf("            %s\n", cescape(line, escaped, sizeof(escaped)));
				lines++;
				s = e ? e + 1 : s + strlen(s);
			}
		}
	} else if (!report && r->addr[0] && !c->no_core) {
		printf("    core:   none found (systemd-coredump not installed, or the core was not kept)\n");
	}
	printf("\n");
}

#undef ESC

static void json_rec(struct json *w, const struct fault_rec *r)
{
	json_begin_object(w);
	json_kv_uint(w, "time_usec", r->usec);
	json_kv_string(w, "boot_id", r->boot);
	json_kv_string(w, "hostname", r->hostname[0] ? r->hostname : NULL);
	json_kv_string(w, "machine_id", r->machine_id[0] ? r->machine_id : NULL);
	json_kv_string(w, "unit", r->unit);
	json_kv_string(w, "cgroup", r->cgroup);
	json_kv_uint(w, "pid", (uint64_t)r->pid);
	json_kv_uint(w, "tid", (uint64_t)r->tid);
	json_kv_string(w, "comm", r->comm);
	json_kv_string(w, "kind", r->kind);
	json_kv_string(w, "action", r->action);
	json_kv_string(w, "mode", r->mode[0] ? r->mode : NULL);
	json_kv_string(w, "addr", r->addr[0] ? r->addr : NULL);
	json_kv_string(w, "pointer_tag", r->ptr_tag[0] ? r->ptr_tag : NULL);
	json_kv_string(w, "memory_tag", r->mem_tag[0] ? r->mem_tag : NULL);
	json_kv_string(w, "pc", r->pc[0] ? r->pc : NULL);
	json_kv_string(w, "pc_object", r->pc_object[0] ? r->pc_object : NULL);
	json_kv_string(w, "tags", r->tags[0] ? r->tags : NULL);
	json_kv_string(w, "cause", r->cause[0] ? r->cause : "unknown");
	json_kv_string(w, "confidence", r->confidence[0] ? r->confidence : "none");
	json_kv_string(w, "cause_text", r->text);
	json_key(w, "allocation_size");
	if (r->alloc_size)
		json_uint(w, r->alloc_size);
	else
		json_null(w);
	json_key(w, "core");
	if (r->has_core) {
		json_begin_object(w);
		json_kv_string(w, "file", r->core_file);
		json_kv_string(w, "note", r->core_note[0] ? r->core_note : NULL);
		json_kv_string(w, "stack", r->stack);
		json_end_object(w);
	} else {
		json_null(w);
	}
	json_kv_string(w, "kernel_message", r->kernel);
	json_kv_string(w, "signature", r->signature[0] ? r->signature : NULL);
	json_kv_string(w, "object", r->object[0] ? r->object : NULL);
	json_kv_string(w, "offset", r->offset[0] ? r->offset : NULL);
	json_kv_string(w, "build_id", r->build_id[0] ? r->build_id : NULL);
	json_kv_string(w, "package", r->package[0] ? r->package : NULL);
	json_kv_string(w, "package_version", r->version[0] ? r->version : NULL);
	json_kv_bool(w, "signature_coarse", strcmp(r->sig_kind, "coarse") == 0);
	json_kv_string(w, "bug_note", r->bug_note[0] ? r->bug_note : NULL);
	json_key(w, "frames");
	json_begin_array(w);
	for (int i = 0; i < r->n_frames; i++) {
		const struct bug_frame *fr = &r->frames[i];
		char hex[24];

		json_begin_object(w);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, fr->pc);
		json_kv_string(w, "pc", hex);
		json_kv_string(w, "object", fr->object[0] ? fr->object : NULL);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, fr->offset);
		json_kv_string(w, "offset", fr->object[0] ? hex : NULL);
		json_kv_string(w, "build_id", fr->build_id[0] ? fr->build_id : NULL);
		json_end_object(w);
	}
	json_end_array(w);
	json_kv_string(w, "stack_signature", r->stack_sig[0] ? r->stack_sig : NULL);
	json_kv_string(w, "upgrade_next", r->upgrade_next[0] ? r->upgrade_next : NULL);
	json_key(w, "upgraded_from");
	if (r->upgraded_from[0]) {
		json_begin_object(w);
		json_kv_string(w, "kernel_cursor", r->upgraded_from);
		json_kv_uint(w, "time_usec", r->upgraded_from_usec);
		json_key(w, "upgraded_start_usec");
		if (r->upgrade_start_usec)
			json_uint(w, r->upgrade_start_usec);
		else
			json_null(w);
		json_end_object(w);
	} else {
		json_null(w);
	}
	json_end_object(w);
}

static void emit(const struct ctl *c, struct json *w, struct fault_rec *r, bool stream)
{
	add_core(c, r);
	add_upgrade_start(c, r);
	if (c->output_cat) {
		char e[4096];

		printf("%s\n", cescape(r->message, e, sizeof(e)));
		if (stream)
			fflush(stdout);
	} else if (c->json) {
		json_rec(w, r);
		if (stream) {
			json_finish(w);
			fflush(stdout);
		}
	} else {
		print_rec(c, r);
		if (stream)
			fflush(stdout);
	}
	free(r->stack);
	r->stack = NULL;
}

/* -b: the boot DESC names ("" the current one, or with other hosts'
 * journals the last), as journalctl takes it: a boot ID, an offset (1 the
 * first boot in the journal, 0 the last, -1 the one before), or an ID
 * with an offset from it.  Into ID (32 hex digits); 0, or -1 with the
 * reason logged. */
struct boot {
	uint64_t first_usec;
	char id[33];
};

static int boot_cmp(const void *a, const void *b)
{
	const struct boot *x = a, *y = b;

	return x->first_usec < y->first_usec ? -1 : x->first_usec > y->first_usec;
}

static int resolve_boot(const struct ctl *c, sd_journal *j, char id[33])
{
	const char *d = c->boot;
	char want[33] = "";
	long off = 0;
	bool has_off = false;
	struct boot *boots = NULL;
	size_t n = 0, cap = 0, at;
	const void *data;
	size_t len;
	int r = -1;

	if (strlen(d) >= 32 && strspn(d, "0123456789abcdefABCDEF") >= 32) {
		memcpy(want, d, 32);
		want[32] = '\0';
		for (char *p = want; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		d += 32;
	}
	if (*d) {
		char *end;

		errno = 0;
		off = strtol(d, &end, 10);
		if (errno || end == d || *end || (want[0] && *d != '+' && *d != '-')) {
			log_msg(LOG_ERR, NULL, "-b '%s': expected a boot ID, an offset, or an ID with +N/-N", c->boot);
			return -1;
		}
		has_off = true;
	}
	if (!want[0] && !has_off && !other_hosts(c)) {
		sd_id128_t b;

		if (sd_id128_get_boot(&b) < 0) {
			log_msg(LOG_ERR, NULL, "-b: cannot read this boot's ID");
			return -1;
		}
		sd_id128_to_string(b, id);
		return 0;
	}
	if (want[0] && !has_off) {
		memcpy(id, want, 33);
		return 0;
	}
	/* The boots in the journal, in the order they began. */
	if (sd_journal_query_unique(j, "_BOOT_ID") < 0) {
		log_msg(LOG_ERR, NULL, "-b: cannot list the boots in the journal");
		return -1;
	}
	SD_JOURNAL_FOREACH_UNIQUE(j, data, len) {
		if (len != 9 + 32 || memcmp(data, "_BOOT_ID=", 9) != 0)
			continue;
		grow_array((void **)&boots, &cap, n + 1, sizeof(*boots));
		memcpy(boots[n].id, (const char *)data + 9, 32);
		boots[n].id[32] = '\0';
		boots[n].first_usec = UINT64_MAX;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		char m[64];

		snprintf(m, sizeof(m), "_BOOT_ID=%s", boots[i].id);
		sd_journal_flush_matches(j);
		sd_journal_add_match(j, m, 0);
		sd_journal_seek_head(j);
		if (sd_journal_next(j) > 0)
			sd_journal_get_realtime_usec(j, &boots[i].first_usec);
	}
	sd_journal_flush_matches(j);
	qsort(boots, n, sizeof(*boots), boot_cmp);
	if (want[0]) {
		for (at = 0; at < n && strcmp(boots[at].id, want) != 0; at++)
			;
		if (at == n) {
			log_msg(LOG_ERR, NULL, "-b: boot %s is not in the journal", want);
			goto out;
		}
		if ((off < 0 && (size_t)-off > at) || (off > 0 && at + (size_t)off >= n))
			goto range;
		at = (size_t)((long)at + off);
	} else if (off > 0) {
		if ((size_t)off > n)
			goto range;
		at = (size_t)off - 1;
	} else {
		if (n == 0 || (size_t)-off >= n)
			goto range;
		at = n - 1 - (size_t)-off;
	}
	memcpy(id, boots[at].id, 33);
	r = 0;
	goto out;
range:
	log_msg(LOG_ERR, NULL, "-b %s: no such boot in the journal (it holds %zu)", c->boot, n);
out:
	free(boots);
	return r;
}

/* Move to the next fault entry mtag-faultd wrote, backwards with BACK;
 * 1 there is one (its time in *USEC), 0 none left. */
static int step(sd_journal *j, bool back, uint64_t *usec)
{
	int e;

	while ((e = back ? sd_journal_previous(j) : sd_journal_next(j)) > 0) {
		if (!ctl_from_faultd(j))
			continue;
		sd_journal_get_realtime_usec(j, usec);
		return 1;
	}
	return 0;
}

/* Place J so that the next step() forwards (or backwards, C->reverse)
 * gives the first fault to show: the window [--since, --until], and of
 * it the last -n N. */
static void position(const struct ctl *c, sd_journal *j)
{
	uint64_t u;
	char *cursor = NULL;

	if (c->reverse || c->lines >= 0) {
		if (c->has_until && c->until_usec < UINT64_MAX)
			sd_journal_seek_realtime_usec(j, c->until_usec + 1);
		else
			sd_journal_seek_tail(j);
	} else if (c->has_since) {
		sd_journal_seek_realtime_usec(j, c->since_usec);
	} else {
		sd_journal_seek_head(j);
	}
	if (c->reverse || c->lines < 0)
		return;
	/* The N-th last in the window, then forwards from it. */
	for (long k = 0; k < c->lines && step(j, true, &u) > 0;) {
		if (c->has_until && u > c->until_usec)
			continue;
		if (c->has_since && u < c->since_usec)
			break;
		free(cursor);
		cursor = NULL;
		sd_journal_get_cursor(j, &cursor);
		k++;
	}
	if (cursor) {
		sd_journal_seek_cursor(j, cursor);
		free(cursor);
	} else {
		/* None: nothing to show, -f goes on from the end. */
		sd_journal_seek_tail(j);
		sd_journal_previous(j);
	}
}

int verb_faults(const struct ctl *c)
{
	sd_journal *j;
	struct fault_rec r;
	struct json w;
	char m[300], boot[33];
	unsigned n = 0;
	uint64_t u;
	int e;

	e = fault_journal_open(c, &j);
	if (e < 0)
		return EXIT_INVALIDARGUMENT;
	if (c->boot && resolve_boot(c, j, boot) < 0) {
		sd_journal_close(j);
		return EXIT_INVALIDARGUMENT;
	}
	fault_journal_match(c, j);
	if (c->boot) {
		snprintf(m, sizeof(m), "_BOOT_ID=%s", boot);
		sd_journal_add_match(j, m, 0);
	}
	position(c, j);
	json_init(&w, stdout, c->json_pretty);
	if (!c->follow)
		pager_open(c);
	if (c->json && !c->output_cat && !c->follow)
		json_begin_array(&w);
	while (step(j, c->reverse, &u) > 0) {
		if (c->reverse ? c->has_until && u > c->until_usec : c->has_since && u < c->since_usec)
			continue;
		if (c->reverse ? c->has_since && u < c->since_usec : c->has_until && u > c->until_usec)
			break;
		read_rec(j, &r);
		emit(c, &w, &r, c->follow);
		n++;
		if (c->reverse && c->lines >= 0 && n >= (unsigned long)c->lines)
			break;
	}
	if (c->json && !c->output_cat && !c->follow) {
		json_end_array(&w);
		json_finish(&w);
	}
	if (!c->follow) {
		if (!c->json && !c->output_cat && !c->no_legend)
			printf("%u fault%s%s%s.%s\n", n, n == 1 ? "" : "s", c->unit ? " of " : "",
			       c->unit ? c->unit : "",
			       n || other_hosts(c) ? "" : " (mtag-faultd records them: is mtag-faultd.service running?)");
		sd_journal_close(j);
		return n ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	/* Follow: wait for journal changes (no polling loop). */
	for (;;) {
		e = sd_journal_wait(j, (uint64_t)-1);
		if (e < 0) {
			log_msg(LOG_ERR, NULL, "waiting for the journal: %s", strerror(-e));
			break;
		}
		while (step(j, false, &u) > 0) {
			read_rec(j, &r);
			emit(c, &w, &r, true);
		}
	}
	sd_journal_close(j);
	return EXIT_INVALIDARGUMENT;
}
