/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-sd.c -- units from systemd over D-Bus, entries from the journal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

#include "cause.h"
#include "faultfields.h"
#include "launcher-args.h"
#include "log.h"
#include "mtagctl-sd.h"
#include "trust.h"
#include "unitfile.h"
#include "util.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"
#define SD_SERVICE "org.freedesktop.systemd1.Service"
#define GENERATOR_DROPIN "/" LAUNCHER_DROPIN_NAME

static sd_bus *bus;

int sd_ctl_open(void)
{
	if (bus)
		return 0;
	return sd_bus_open_system(&bus);
}

void sd_ctl_close(void)
{
	bus = sd_bus_flush_close_unref(bus);
}

void unit_info_free(struct unit_info *u)
{
	free(u->name);
	free(u->load_state);
	free(u->active_state);
	free(u->sub_state);
	free(u->cgroup);
	free(u->dropin);
	free(u->unwrapped_by);
	memset(u, 0, sizeof(*u));
}

static char *prop_string(const char *path, const char *iface, const char *member)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	char *s = NULL;

	if (sd_bus_get_property_string(bus, SD_DEST, path, iface, member, &err, &s) < 0)
		s = NULL;
	sd_bus_error_free(&err);
	return s ? s : xstrdup("");
}

/* Does every ExecStart= command of the service at PATH run mtag-launcher?
 * 1 yes, 0 no, -1 cannot tell. */
static int exec_start_wrapped(const char *path)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *exe;
	int r, all = -1;

	if (sd_bus_get_property(bus, SD_DEST, path, SD_SERVICE, "ExecStart", &err, &m,
				"a(sasbttttuii)") < 0 ||
	    sd_bus_message_enter_container(m, 'a', "(sasbttttuii)") < 0)
		goto out;
	all = 1;
	while ((r = sd_bus_message_enter_container(m, 'r', "sasbttttuii")) > 0) {
		size_t l;

		if (sd_bus_message_read(m, "s", &exe) < 0 || sd_bus_message_skip(m, "asbttttuii") < 0) {
			all = -1;
			break;
		}
		l = strlen(exe);
		if (l < 14 || strcmp(exe + l - 14, "/mtag-launcher") != 0)
			all = 0;
		sd_bus_message_exit_container(m);
	}
	if (r < 0)
		all = -1;
out:
	sd_bus_message_unref(m);
	sd_bus_error_free(&err);
	return all;
}

/* Fill U (name already set) from the unit object at PATH. */
static int fill_unit(const char *path, struct unit_info *u)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const void *id = NULL;
	size_t idlen = 0;
	uint32_t pid = 0;
	uint64_t t = 0;
	int b = 0;
	char **dropins = NULL;

	u->load_state = prop_string(path, SD_UNIT, "LoadState");
	u->active_state = prop_string(path, SD_UNIT, "ActiveState");
	u->sub_state = prop_string(path, SD_UNIT, "SubState");
	u->cgroup = prop_string(path, SD_SERVICE, "ControlGroup");
	if (sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, "MainPID", &err, 'u', &pid) >= 0)
		u->main_pid = (pid_t)pid;
	sd_bus_error_free(&err);
	if (sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, "ExecMainStartTimestamp", &err, 't', &t) >= 0)
		u->start_usec = t;
	sd_bus_error_free(&err);
	if (sd_bus_get_property_trivial(bus, SD_DEST, path, SD_UNIT, "NeedDaemonReload", &err, 'b', &b) >= 0)
		u->need_reload = b;
	sd_bus_error_free(&err);
	u->invocation[0] = '\0';
	if (sd_bus_get_property(bus, SD_DEST, path, SD_UNIT, "InvocationID", &err, &m, "ay") >= 0 &&
	    sd_bus_message_read_array(m, 'y', &id, &idlen) >= 0 && idlen == 16) {
		const unsigned char *p = id;
		bool zero = true;

		for (size_t i = 0; i < 16; i++) {
			snprintf(u->invocation + 2 * i, 3, "%02x", p[i]);
			zero = zero && !p[i];
		}
		if (zero)
			u->invocation[0] = '\0';
	}
	sd_bus_message_unref(m);
	sd_bus_error_free(&err);
	u->wrapped = false;
	if (sd_bus_get_property_strv(bus, SD_DEST, path, SD_UNIT, "DropInPaths", &err, &dropins) >= 0 && dropins) {
		for (char **d = dropins; *d; d++) {
			size_t l = strlen(*d);

			if (l >= strlen(GENERATOR_DROPIN) &&
			    strcmp(*d + l - strlen(GENERATOR_DROPIN), GENERATOR_DROPIN) == 0) {
				u->wrapped = true;
				free(u->dropin);
				u->dropin = xstrdup(*d);
			}
		}
		/* Loaded, but a drop-in read after it replaced ExecStart=
		 * (a local zzz-*.conf): name the ones that set it. */
		if (u->wrapped && exec_start_wrapped(path) == 0) {
			u->unwrapped_by = xstrdup("");
			for (char **d = dropins; *d; d++) {
				static const char *const keys[] = { "ExecStart" };
				const char *base = strrchr(*d, '/');
				struct unit_file_keys k;
				char *e = NULL, *n;

				if (strcmp(base ? base : *d, GENERATOR_DROPIN) <= 0)
					continue;
				if (unit_file_parse(*d, keys, 1, &k, &e) >= 0 && k.n) {
					n = xasprintf("%s%s%s", u->unwrapped_by, *u->unwrapped_by ? ", " : "", *d);
					free(u->unwrapped_by);
					u->unwrapped_by = n;
				}
				unit_file_keys_free(&k);
				free(e);
			}
		}
		for (char **d = dropins; *d; d++)
			free(*d);
		free(dropins);
	}
	sd_bus_error_free(&err);
	return 0;
}

static int cmp_units(const void *a, const void *b)
{
	return strcmp(((const struct unit_info *)a)->name, ((const struct unit_info *)b)->name);
}

int sd_ctl_list_services(struct unit_info **out, size_t *n)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL, *call = NULL;
	struct unit_info *v = NULL;
	size_t cap = 0, len = 0;
	const char *name, *desc, *load, *active, *sub, *following, *path, *jobtype, *jobpath;
	uint32_t jobid;
	int r;

	*out = NULL;
	*n = 0;
	r = sd_ctl_open();
	if (r < 0)
		return r;
	r = sd_bus_message_new_method_call(bus, &call, SD_DEST, SD_PATH, SD_MANAGER, "ListUnitsByPatterns");
	if (r >= 0)
		r = sd_bus_message_append_strv(call, NULL);
	if (r >= 0)
		r = sd_bus_message_append(call, "as", 1, "*.service");
	if (r >= 0)
		r = sd_bus_call(bus, call, 0, &err, &reply);
	sd_bus_message_unref(call);
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "cannot list the units: %s", err.message ? err.message : strerror(-r));
		sd_bus_error_free(&err);
		return r;
	}
	r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
	while (r >= 0 && (r = sd_bus_message_read(reply, "(ssssssouso)", &name, &desc, &load, &active,
						  &sub, &following, &path, &jobid, &jobtype, &jobpath)) > 0) {
		grow_array((void **)&v, &cap, len + 1, sizeof(*v));
		memset(&v[len], 0, sizeof(v[len]));
		v[len].name = xstrdup(name);
		fill_unit(path, &v[len]);
		len++;
	}
	sd_bus_message_unref(reply);
	if (r < 0) {
		for (size_t i = 0; i < len; i++)
			unit_info_free(&v[i]);
		free(v);
		return r;
	}
	if (len)
		qsort(v, len, sizeof(*v), cmp_units);
	*out = v;
	*n = len;
	return 0;
}

int sd_ctl_get_unit(const char *name, struct unit_info *u)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path;
	char *full;
	int r;

	memset(u, 0, sizeof(*u));
	r = sd_ctl_open();
	if (r < 0)
		return r;
	full = strchr(name, '.') ? xstrdup(name) : xasprintf("%s.service", name);
	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "LoadUnit", &err, &reply, "s", full);
	if (r < 0 || sd_bus_message_read(reply, "o", &path) < 0) {
		sd_bus_error_free(&err);
		sd_bus_message_unref(reply);
		free(full);
		return r < 0 ? r : -EIO;
	}
	u->name = full;
	fill_unit(path, u);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&err);
	if (strcmp(u->load_state, "not-found") == 0)
		return -ENOENT;
	return 0;
}

char *sd_ctl_pid_unit(pid_t pid)
{
	char *u = NULL;

	if (sd_pid_get_unit(pid, &u) < 0)
		return NULL;
	return u;
}

void sd_ctl_field(sd_journal *j, const char *name, char *buf, size_t len)
{
	const void *d;
	size_t l, nl = strlen(name);

	buf[0] = '\0';
	if (sd_journal_get_data(j, name, &d, &l) < 0 || l <= nl + 1)
		return;
	l -= nl + 1;
	if (l >= len)
		l = len - 1;
	memcpy(buf, (const char *)d + nl + 1, l);
	buf[l] = '\0';
}

static int entry_get_data(void *j, const char *field, const void **data, size_t *len)
{
	return sd_journal_get_data(j, field, data, len);
}

struct jentry *sd_ctl_entry(sd_journal *j)
{
	struct jentry *c = xmalloc(sizeof(*c));

	c->get_data = entry_get_data;
	c->j = j;
	c->next = 0;
	return c;
}

bool sd_ctl_trusted(sd_journal *j, enum jwriter w, const char *unit)
{
	struct jentry *c = sd_ctl_entry(j);
	bool ok = jwriter_trusted(w, jentry_field, c, unit, NULL);

	free(c);
	return ok;
}

int sd_ctl_launcher_entry(const char *invocation, const char *unit, struct launcher_entry *e)
{
	sd_journal *j;
	char m[128];
	int r, found = 0;

	memset(e, 0, sizeof(*e));
	if (!invocation || !*invocation)
		return 0;
	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
	if (r < 0)
		return r;
	snprintf(m, sizeof(m), "_SYSTEMD_INVOCATION_ID=%s", invocation);
	sd_journal_add_match(j, m, 0);
	sd_journal_add_match(j, "MESSAGE_ID=" MSGID_APPLIED, 0);
	/* The first entry of the invocation is the launcher's: it wrote it
	 * before it ran the service, whose own entries come later. */
	sd_journal_seek_head(j);
	while (sd_journal_next(j) > 0) {
		char u[256];

		if (!sd_ctl_trusted(j, JW_LAUNCHER, unit))
			continue;
		sd_ctl_field(j, "MTAG_UNIT", u, sizeof(u));
		if (unit && *u && strcmp(u, unit) != 0)
			continue;
		sd_ctl_field(j, "MTAG_MODE", e->mode, sizeof(e->mode));
		sd_ctl_field(j, "MTAG_POLICY_SOURCE", e->source, sizeof(e->source));
		sd_ctl_field(j, "MTAG_HEAP", e->heap, sizeof(e->heap));
		sd_ctl_field(j, "MTAG_REPORT", e->report, sizeof(e->report));
		sd_journal_get_realtime_usec(j, &e->usec);
		found = 1;
		break;
	}
	sd_journal_close(j);
	return found;
}

int sd_ctl_count_faults(const char *unit, unsigned counts[5])
{
	sd_journal *j;
	sd_id128_t boot;
	char m[300], id[33];
	int r, total = 0;

	memset(counts, 0, 5 * sizeof(counts[0]));
	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
	if (r < 0)
		return r;
	sd_journal_add_match(j, "MESSAGE_ID=" MSGID_FAULT, 0);
	if (sd_id128_get_boot(&boot) >= 0) {
		snprintf(m, sizeof(m), "_BOOT_ID=%s", sd_id128_to_string(boot, id));
		sd_journal_add_match(j, m, 0);
	}
	if (unit) {
		snprintf(m, sizeof(m), "MTAG_UNIT=%s", unit);
		sd_journal_add_match(j, m, 0);
	}
	SD_JOURNAL_FOREACH(j) {
		char cause[32];
		enum mte_cause c = MTE_CAUSE_UNKNOWN;

		if (!sd_ctl_trusted(j, JW_FAULTD, NULL))
			continue;
		sd_ctl_field(j, "MTAG_CAUSE", cause, sizeof(cause));
		for (int k = 0; k < 5; k++)
			if (strcmp(cause, mte_cause_name((enum mte_cause)k)) == 0)
				c = (enum mte_cause)k;
		counts[c]++;
		total++;
	}
	sd_journal_close(j);
	return total;
}

/* Feed T the entries of this boot that match M1 and M2. */
static int tally_pass(struct upgrade_tally *t, const char *unit, const char *m1, const char *m2)
{
	struct jentry *c;
	sd_journal *j;
	sd_id128_t boot;
	char m[300], id[33];
	int r;

	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
	if (r < 0)
		return r;
	sd_journal_add_match(j, m1, 0);
	sd_journal_add_match(j, m2, 0);
	if (sd_id128_get_boot(&boot) >= 0) {
		snprintf(m, sizeof(m), "_BOOT_ID=%s", sd_id128_to_string(boot, id));
		sd_journal_add_match(j, m, 0);
	}
	c = sd_ctl_entry(j);
	SD_JOURNAL_FOREACH(j)
		upgrade_tally_add(t, jentry_field, c, unit);
	free(c);
	sd_journal_close(j);
	return 0;
}

int sd_ctl_count_upgrades(const char *unit)
{
	struct upgrade_tally t = { 0 };
	char m[300];
	int r;

	if (!unit)
		return 0;
	/* mtag-faultd's entries of the unit's async faults that recorded an
	 * upgraded start, and the launcher's entries of the starts (trust.h:
	 * only faultd's count, each once, when a start names it). */
	snprintf(m, sizeof(m), "MTAG_UNIT=%s", unit);
	r = tally_pass(&t, unit, "MESSAGE_ID=" MSGID_FAULT, m);
	if (r >= 0) {
		snprintf(m, sizeof(m), "_SYSTEMD_UNIT=%s", unit);
		r = tally_pass(&t, unit, "MESSAGE_ID=" MSGID_UPGRADED_START, m);
	}
	if (r >= 0)
		r = (int)upgrade_tally_count(&t);
	upgrade_tally_free(&t);
	return r;
}
