/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.h -- the per-service MTE policy: parsing one file, lookup. */
#ifndef MTAG_POLICY_H
#define MTAG_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The policy key upgrade= (the upgraded start after an async fault,
 * src/upgrade/): its default and its longest window. */
#define UPGRADE_DEFAULT_NS (600ULL * 1000000000ULL) /* upgrade=10min */
/* The longest upgrade= window (mtag-policy.conf(5)): a week.  The window is
 * a deadline of CLOCK_BOOTTIME in ns, which the kernel keeps in a signed
 * ktime_t (KTIME_MAX, about 292 years, refuses 106752d and more); a window
 * longer than a week is a policy of sync, which says so itself. */
#define UPGRADE_MAX_NS (7ULL * 24 * 3600 * 1000000000ULL)

enum mtag_mode {
	MTAG_MODE_OFF,
	MTAG_MODE_ASYNC,
	MTAG_MODE_SYNC,
	MTAG_MODE_ASYMM,
	MTAG_MODE_REPORT, /* sync checks under the kernel's report-only mode */
};

/* Special patterns. */
#define POLICY_DEFAULT "default"
#define POLICY_CPU_PREFERRED "cpu-preferred"

enum entry_kind {
	ENTRY_EXACT,    /* a unit name: nginx.service, getty@tty1.service */
	ENTRY_TEMPLATE, /* foo@.service: every instance of foo@ */
	ENTRY_GLOB,     /* fnmatch pattern */
	ENTRY_DEFAULT,  /* the "default" entry */
};

struct policy_entry {
	char *pattern;
	enum entry_kind kind;
	enum mtag_mode mode;
	bool heap;       /* tag malloc memory (bit 0 of the tunable) */
	bool require;    /* refuse to start without MTE */
	bool strict;     /* refuse to start when the policy has errors */
	uint64_t reenable_ns; /* report: checks back on after this much CPU
			       * time of a thread; DURATION_INFINITY: never */
	uint64_t upgrade_ns; /* async: after an async fault, the next start
			      * runs in sync this long (0: upgrade=no) */
	const char *file; /* owned by struct policy's file list */
	unsigned line;
	unsigned rank;    /* the source's priority: POLICY_RANK_* */
};

/* Where an entry comes from, highest priority first.  Between two entries
 * for the same pattern the higher-priority source wins, whatever the
 * reading order; within one rank the later entry wins. */
#define POLICY_RANK_ETC 0        /* /etc/mtag (and --config FILE) */
#define POLICY_RANK_RUN 1        /* /run/mtag/policy.d */
#define POLICY_RANK_LOCAL_LIB 2  /* /usr/local/lib/mtag/policy.d */
#define POLICY_RANK_VENDOR 3     /* /usr/lib/mtag/policy.d: the package's */

enum diag_level { DIAG_WARNING, DIAG_ERROR };

struct diag {
	enum diag_level level;
	const char *file;
	unsigned line; /* 0: about the whole file */
	char *msg;
};

struct policy {
	struct policy_entry *entries; /* in reading order, one per pattern */
	size_t n_entries, cap_entries;
	size_t *index;    /* open-addressing hash of pattern -> entry + 1 */
	size_t index_size; /* power of two, or 0 */
	struct diag *diags;
	size_t n_diags, cap_diags;
	char **files; /* every file name read, for entry->file / diag->file */
	size_t n_files;
	/* cpu-preferred: the mode written to mte_tcf_preferred at boot. */
	bool has_cpu_preferred;
	enum mtag_mode cpu_preferred;
	const char *cpu_preferred_file;
	unsigned cpu_preferred_line;
	unsigned cpu_preferred_rank;
	/* The rank policy_parse gives the entries it reads (default 0). */
	unsigned rank;
};

void policy_init(struct policy *p);
void policy_free(struct policy *p);

/* Remember FILE's name in P (the returned string lives as long as P). */
const char *policy_add_file(struct policy *p, const char *file);

/* Parse LEN bytes of BUF read from FILE into P.  Malformed lines are
 * recorded as DIAG_ERROR diagnostics and skipped; the rest is kept. */
void policy_parse(struct policy *p, const char *file, const char *buf, size_t len);

/* Record a diagnostic (printf-style). */
void policy_diag(struct policy *p, enum diag_level level, const char *file,
		 unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

size_t policy_error_count(const struct policy *p);

/* The entry that applies to UNIT (exact name, then template, then the
 * first matching glob in reading order, then "default"), or NULL. */
const struct policy_entry *policy_lookup(const struct policy *p, const char *unit);

/* Does UNIT get a policy from an entry naming it (not just "default")? */
bool policy_names_unit(const struct policy *p, const char *unit);

const char *mode_name(enum mtag_mode m);
int mode_from_string(const char *s, enum mtag_mode *out);

/* Value of glibc.mem.tagging / glibc.memtag.enable for MODE and HEAP:
 * off=0, async=1, sync=3, asymm=5, report=3 (glibc checks synchronously;
 * the kernel turns the fault into a report); heap=false clears bit 0. */
unsigned mode_tunable_value(enum mtag_mode mode, bool heap);

/* The options of entry E as a policy line would write them after the
 * unit pattern ("sync", "report reenable=500ms require=yes", ...), for
 * mtag-generator to hand the resolved entry to the launcher
 * (--policy-entry): parsing the result gives the same mode, heap,
 * require, strict, reenable and upgrade.  Malloc'ed. */
char *policy_entry_options(const struct policy_entry *e);

/* Is NAME a syntactically valid unit name (not a pattern)? */
bool unit_name_is_valid(const char *name);

#endif
